/**
 * MemoryStorage: the shared conformance suites (core, lock, watch), then the
 * few behaviours specific to this adapter.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, SortedKeys } from '../../adapters/memory/index.js';
import { runStorageConformance } from '../conformance/storage.js';
import { runLockConformance } from '../conformance/storage-lock.js';
import { runWatchConformance } from '../conformance/storage-watch.js';
import { FakeClock } from '../helpers/fake-clock.js';

runStorageConformance('memory', async () => {
  const clock = new FakeClock();
  return { storage: new MemoryStorage({ clock }), clock };
});

runLockConformance('memory', async () => {
  const clock = new FakeClock();
  return { storage: new MemoryStorage({ clock }), clock };
});

runWatchConformance('memory', async () => ({ storage: new MemoryStorage() }));

describe('MemoryStorage specifics', () => {
  it('notifies in a microtask, not synchronously inside the write', async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    await s.watch('', (k) => seen.push(k));
    const pending = s.put('k', new Uint8Array([1]));
    expect(seen).toEqual([]);
    await pending;
    await Promise.resolve();
    expect(seen).toEqual(['k']);
  });

  it('a delete of a missing key does not notify', async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    await s.watch('', (k) => seen.push(k));
    await s.delete('missing');
    await s.put('sentinel', new Uint8Array(0));
    await Promise.resolve();
    expect(seen).toEqual(['sentinel']);
  });

  it('close drops watchers and leases but keeps data', async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    await s.watch('', (k) => seen.push(k));
    const lease = await s.lock('leader', 60_000);
    await s.close();
    await s.put('k', new Uint8Array([1]));
    await Promise.resolve();
    expect(seen).toEqual([]);
    expect(await lease?.refresh(60_000)).toBe(false);
    expect(await s.lock('leader', 60_000)).toBeDefined();
    expect(await s.get('k')).toEqual(new Uint8Array([1]));
  });

  it('uses the system clock by default', async () => {
    const s = new MemoryStorage();
    const h = await s.lock('leader', 60_000);
    expect(h).toBeDefined();
    expect(await s.lock('leader', 60_000)).toBeUndefined();
  });

  it('has no node:* import (it must run in a browser)', () => {
    const src = readFileSync(new URL('../../adapters/memory/index.ts', import.meta.url), 'utf8');
    expect(src).not.toMatch(/from\s+['"]node:/);
  });
});

describe('SortedKeys', () => {
  it('keeps keys sorted and unique through inserts and removes', () => {
    const s = SortedKeys.from(['b', 'a', 'b']);
    for (const k of ['d', 'c', 'a', 'e', 'c']) s.insert(k);
    s.remove('d');
    s.remove('zz');
    expect(s.size).toBe(4);
    expect(s.page('', undefined, 0)).toEqual(['a', 'b', 'c', 'e']);
  });

  it('pages from the middle of 100,000 keys', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `k/${String(i).padStart(6, '0')}`);
    const s = SortedKeys.from(keys);
    expect(s.page('k/', '050000', 3)).toEqual(['050001', '050002', '050003']);
    expect(s.page('k/0999', undefined, 0)).toEqual(
      Array.from({ length: 100 }, (_, i) => `${9900 + i}`.slice(2)),
    );
  });
});
