/**
 * Automatic rotation on a fake clock (reference §13): a key rotates when
 * `now > latest version time + period`; period 0 and soft-deleted keys are
 * skipped; overlapping passes rotate once; long keys and many keys work.
 */
import { MemoryStorage, Transit } from 'transitkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FAKE_CLOCK_START, FakeClock } from '../helpers/fake-clock.js';
import { b64, expectError, makeEngine } from './support.js';

const HOUR = 3_600_000;
const START_S = Math.floor(FAKE_CLOCK_START / 1000);

describe('runAutoRotation', () => {
  it('does nothing before the period has elapsed, rotates once after', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('k', { auto_rotate_period: '1h' });
    expect(await transit.runAutoRotation()).toEqual({ rotated: [], errors: [] });
    clock.advance(59 * 60_000);
    expect(await transit.runAutoRotation()).toEqual({ rotated: [], errors: [] });
    clock.set(FAKE_CLOCK_START + HOUR); // exactly the period: not yet (strictly after)
    expect(await transit.runAutoRotation()).toEqual({ rotated: [], errors: [] });
    expect((await transit.readKey('k')).latest_version).toBe(1);

    clock.set(FAKE_CLOCK_START + HOUR + 1000);
    expect(await transit.runAutoRotation()).toEqual({ rotated: ['k'], errors: [] });
    const info = await transit.readKey('k');
    expect(info.latest_version).toBe(2);
    expect(info.keys).toEqual({ '1': START_S, '2': START_S + 3601 });

    // the next pass right away does nothing; the period restarts from version 2
    expect(await transit.runAutoRotation()).toEqual({ rotated: [], errors: [] });
    clock.advance(HOUR);
    expect((await transit.runAutoRotation()).rotated).toEqual([]);
    clock.advance(1000);
    expect((await transit.runAutoRotation()).rotated).toEqual(['k']);
    expect((await transit.readKey('k')).latest_version).toBe(3);
  });

  it('rotates once per pass however late the pass is', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('k', { auto_rotate_period: '1h' });
    clock.advance(10 * HOUR);
    expect((await transit.runAutoRotation()).rotated).toEqual(['k']);
    expect((await transit.readKey('k')).latest_version).toBe(2);
    expect((await transit.runAutoRotation()).rotated).toEqual([]);
  });

  it('counts from the latest version, so a manual rotation postpones it', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('k', { auto_rotate_period: '2h' });
    clock.advance(HOUR);
    await transit.rotateKey('k');
    clock.advance(HOUR + 1000); // 2h after v1, 1h after v2
    expect((await transit.runAutoRotation()).rotated).toEqual([]);
    clock.advance(HOUR);
    expect((await transit.runAutoRotation()).rotated).toEqual(['k']);
    expect((await transit.readKey('k')).latest_version).toBe(3);
  });

  it('a period set later by config applies', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('k');
    clock.advance(5 * HOUR);
    expect((await transit.runAutoRotation()).rotated).toEqual([]);
    await transit.updateKeyConfig('k', { auto_rotate_period: '4h' });
    expect((await transit.runAutoRotation()).rotated).toEqual(['k']);
    await transit.updateKeyConfig('k', { auto_rotate_period: 0 });
    clock.advance(100 * HOUR);
    expect((await transit.runAutoRotation()).rotated).toEqual([]);
    expect((await transit.readKey('k')).latest_version).toBe(2);
  });

  it('two concurrent passes rotate a due key exactly once', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('a', { auto_rotate_period: 3600 });
    await transit.createKey('b', { auto_rotate_period: 7200 });
    clock.advance(2 * HOUR + 1000);
    const [r1, r2, r3] = await Promise.all([
      transit.runAutoRotation(),
      transit.runAutoRotation(),
      transit.runAutoRotation(),
    ]);
    expect((await transit.readKey('a')).latest_version).toBe(2);
    expect((await transit.readKey('b')).latest_version).toBe(2);
    expect([r1?.errors, r2?.errors, r3?.errors]).toEqual([[], [], []]);
    // each rotation is reported by the one pass that made it
    const all = [...(r1?.rotated ?? []), ...(r2?.rotated ?? []), ...(r3?.rotated ?? [])].sort();
    expect(all).toEqual(['a', 'b']);
  });

  it('two instances on one storage rotate a due key exactly once', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const a = new Transit({ storage, clock, autoRotate: false });
    const b = new Transit({ storage, clock, autoRotate: false, crypto: 'noble' });
    await a.createKey('k', { auto_rotate_period: '1h' });
    await b.readKey('k');
    clock.advance(HOUR + 1000);
    const [ra, rb] = await Promise.all([a.runAutoRotation(), b.runAutoRotation()]);
    const fresh = new Transit({ storage, clock, autoRotate: false });
    expect((await fresh.readKey('k')).latest_version).toBe(2);
    expect([...ra.rotated, ...rb.rotated]).toEqual(['k']);
  });

  it('skips soft-deleted keys and keys with period 0', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('due', { auto_rotate_period: '1h' });
    await transit.createKey('soft', { auto_rotate_period: '1h' });
    await transit.createKey('never');
    await transit.createKey('zero', { auto_rotate_period: 0 });
    await transit.softDeleteKey('soft');
    clock.advance(3 * HOUR);
    expect(await transit.runAutoRotation()).toEqual({ rotated: ['due'], errors: [] });
    for (const k of ['soft', 'never', 'zero'])
      expect((await transit.readKey(k)).latest_version).toBe(1);
    // once restored, the overdue key rotates on the next pass
    await transit.restoreSoftDeletedKey('soft');
    expect((await transit.runAutoRotation()).rotated).toEqual(['soft']);
  });

  it('rotates hmac keys and keeps their size', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('h', { type: 'hmac', key_size: 64, auto_rotate_period: '1h' });
    clock.advance(HOUR + 1);
    expect((await transit.runAutoRotation()).rotated).toEqual(['h']);
    expect(await transit.readKey('h')).toMatchObject({ latest_version: 2, key_size: 64 });
    expect((await transit.hmac('h', { input: b64('x') })).hmac).toMatch(/^vault:v2:/);
  });

  it('handles a key with 1,000 versions', async () => {
    const { transit, clock } = makeEngine();
    await transit.createKey('big');
    const first = (await transit.encrypt('big', { plaintext: b64('v1 data') })).ciphertext;
    for (let i = 0; i < 999; i++) await transit.rotateKey('big');
    await transit.updateKeyConfig('big', { auto_rotate_period: '1h' });
    clock.advance(HOUR + 1000);
    expect(await transit.runAutoRotation()).toEqual({ rotated: ['big'], errors: [] });
    const info = await transit.readKey('big');
    expect(info.latest_version).toBe(1001);
    expect(Object.keys(info.keys)).toHaveLength(1001);
    expect((await transit.decrypt('big', { ciphertext: first })).plaintext).toBe(b64('v1 data'));
    const v500 = await transit.encrypt('big', { plaintext: b64('mid'), key_version: 500 });
    expect(v500.ciphertext).toMatch(/^vault:v500:/);
    expect((await transit.decrypt('big', { ciphertext: v500.ciphertext })).plaintext).toBe(
      b64('mid'),
    );
    expect((await transit.encrypt('big', { plaintext: b64('x') })).key_version).toBe(1001);
  }, 60_000);

  it('handles many keys (more than one listing page)', async () => {
    const { transit, clock } = makeEngine();
    const N = 1_100;
    const due: string[] = [];
    for (let i = 0; i < N; i++) {
      const name = `key-${String(i).padStart(5, '0')}`;
      const period = i % 11 === 0 ? 0 : '1h';
      await transit.createKey(name, { auto_rotate_period: period });
      if (period !== 0) due.push(name);
    }
    clock.advance(HOUR + 1000);
    const r = await transit.runAutoRotation();
    expect(r.errors).toEqual([]);
    expect([...r.rotated].sort()).toEqual(due);
    expect((await transit.readKey('key-00000')).latest_version).toBe(1);
    expect((await transit.readKey('key-00001')).latest_version).toBe(2);
    expect((await transit.readKey(`key-${String(N - 1).padStart(5, '0')}`)).latest_version).toBe(2);
    expect((await transit.runAutoRotation()).rotated).toEqual([]);
  }, 60_000);
});

describe('the auto-rotation timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs passes on its interval and stops on close()', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const transit = new Transit({ storage, clock, autoRotate: { intervalMs: 1000 } });
    await transit.createKey('k', { auto_rotate_period: '1h' });
    await vi.advanceTimersByTimeAsync(5000);
    expect((await transit.readKey('k')).latest_version).toBe(1);
    clock.advance(HOUR + 1000);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await transit.readKey('k')).latest_version).toBe(2);
    await transit.close();
    clock.advance(10 * HOUR);
    await vi.advanceTimersByTimeAsync(10_000);
    // A closed Transit refuses calls; another instance reads what storage holds.
    await expectError(transit.readKey('k'), 'sealed');
    const after = new Transit({ storage, clock, autoRotate: false });
    expect((await after.readKey('k')).latest_version).toBe(2);
    await after.close();
  });

  it('autoRotate: false never rotates by itself', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { transit, clock } = makeEngine();
    await transit.createKey('k', { auto_rotate_period: '1h' });
    clock.advance(10 * HOUR);
    await vi.advanceTimersByTimeAsync(600_000);
    expect((await transit.readKey('k')).latest_version).toBe(1);
    await expectError(transit.readKey('missing'), 'not_found');
  });
});
