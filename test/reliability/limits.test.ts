/**
 * Limits (issue 9), each refused with a clear message and no state change:
 * request body size (HTTP 413), batch size (400; every batch endpoint;
 * configurable, default 10,000), key names (length and characters), and the
 * maximum number of live versions per key (rotate, auto-rotate, restore).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import { MAX_KEY_NAME_LENGTH } from '../../src/keys/names.js';
import { DEFAULT_MAX_KEY_VERSIONS } from '../../src/keys/policy.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { DEFAULT_MAX_BATCH } from '../../src/transit/batch.js';
import { Transit } from '../../src/transit/transit.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { type FuzzServer, settle, startFuzzServer } from './fuzz-server.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const PT = b64('limit');

/** A storage whose writes are counted through its own `watch`. */
async function counted(): Promise<{ storage: MemoryStorage; writes: () => number }> {
  const storage = new MemoryStorage();
  let n = 0;
  await storage.watch('', () => {
    n++;
  });
  return { storage, writes: () => n };
}

describe('batch size limit', () => {
  const LIMIT = 3;
  let transit: Transit;
  let writes: () => number;
  const made: Record<string, string> = {};

  beforeAll(async () => {
    const c = await counted();
    writes = c.writes;
    transit = new Transit({ storage: c.storage, maxBatchSize: LIMIT, autoRotate: false });
    await transit.createKey('aes');
    await transit.createKey('ed', { type: 'ed25519' });
    made.ct = (await transit.encrypt('aes', { plaintext: PT })).ciphertext;
    made.mac = (await transit.hmac('aes', { input: PT })).hmac;
    made.sig = (await transit.sign('ed', { input: PT })).signature;
  });
  afterAll(() => transit.close());

  const CASES: [string, (n: number) => Promise<unknown>][] = [
    ['encrypt', (n) => transit.encrypt('aes', { batch_input: items(n, { plaintext: PT }) })],
    [
      'encrypt (upsert of a new key)',
      (n) => transit.encrypt('new', { batch_input: items(n, { plaintext: PT }) }, { upsert: true }),
    ],
    ['decrypt', (n) => transit.decrypt('aes', { batch_input: items(n, { ciphertext: made.ct }) })],
    ['rewrap', (n) => transit.rewrap('aes', { batch_input: items(n, { ciphertext: made.ct }) })],
    ['hmac', (n) => transit.hmac('aes', { batch_input: items(n, { input: PT }) })],
    ['sign', (n) => transit.sign('ed', { batch_input: items(n, { input: PT }) })],
    [
      'verify (signature)',
      (n) => transit.verify('ed', { batch_input: items(n, { input: PT, signature: made.sig }) }),
    ],
    [
      'verify (hmac)',
      (n) => transit.verify('aes', { batch_input: items(n, { input: PT, hmac: made.mac }) }),
    ],
  ];
  function items<T extends object>(n: number, item: T): T[] {
    return Array.from({ length: n }, () => ({ ...item }));
  }

  it.each(CASES)(
    '%s: the limit passes, one more is refused before any item runs',
    async (_, run) => {
      const ok = (await run(LIMIT)) as { batch_results: { error?: string }[] };
      expect(ok.batch_results).toHaveLength(LIMIT);
      expect(ok.batch_results.every((r) => !r.error)).toBe(true);
      await settle();
      const before = writes();
      await expect(run(LIMIT + 1)).rejects.toMatchObject({
        code: 'invalid_request',
        message: `batch_input has ${LIMIT + 1} items; the limit is ${LIMIT}`,
      });
      await settle();
      expect(writes()).toBe(before);
    },
  );

  it('defaults to 10,000 and refuses a bad setting', async () => {
    expect(DEFAULT_MAX_BATCH).toBe(10_000);
    const t = new Transit({ autoRotate: false });
    await t.createKey('h', { type: 'hmac', key_size: 32 });
    const many = Array.from({ length: DEFAULT_MAX_BATCH + 1 }, () => ({ input: PT }));
    await expect(t.hmac('h', { batch_input: many })).rejects.toThrow(
      'batch_input has 10001 items; the limit is 10000',
    );
    const res = await t.hmac('h', { batch_input: many.slice(1) });
    expect(res.batch_results).toHaveLength(DEFAULT_MAX_BATCH);
    await t.close();
    for (const bad of [0, -1, 1.5, Number.NaN, '10' as unknown as number]) {
      expect(() => new Transit({ maxBatchSize: bad })).toThrow(
        'maxBatchSize must be a positive integer',
      );
    }
  });
});

describe('over HTTP: body size (413) and batch size (400)', () => {
  let server: FuzzServer;
  beforeAll(async () => {
    server = await startFuzzServer({ maxRequestBytes: 4096 });
    await server.transit.createKey('k');
  });
  afterAll(() => server.close());

  it('a body over the limit is 413 with a clear message; at the limit it is read', async () => {
    const body = (size: number) => {
      const head = '{"plaintext":"';
      const tail = '"}';
      return `${head}${'A'.repeat(size - head.length - tail.length)}${tail}`;
    };
    await settle();
    const before = server.writes();
    const over = await server.send({
      method: 'POST',
      url: '/v1/transit/encrypt/k',
      body: body(4097),
    });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toEqual({ errors: ['http: request body too large'] });
    await settle();
    expect(server.writes()).toBe(before);
    const at = await server.send({
      method: 'POST',
      url: '/v1/transit/encrypt/k',
      body: body(4096),
    });
    expect(at.status).toBe(200);
    expect(server.logged).toEqual([]);
  });

  it('a batch over the default limit is 400 with the limit in the message', async () => {
    const big = await startFuzzServer({ maxRequestBytes: 32 * 1024 * 1024 });
    try {
      const item = { plaintext: PT };
      const r = await big.send({
        method: 'POST',
        url: '/v1/transit/encrypt/k',
        body: JSON.stringify({ batch_input: Array(DEFAULT_MAX_BATCH + 1).fill(item) }),
      });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.text)).toEqual({
        errors: ['batch_input has 10001 items; the limit is 10000'],
      });
      // Nothing was upserted by the refused batch.
      expect((await big.transit.listKeys()).keys).toEqual([]);
    } finally {
      await big.close();
    }
  });
});

describe('key names', () => {
  const transit = new Transit({ autoRotate: false });
  afterAll(() => transit.close());
  const VALID = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

  it(`accepts ${MAX_KEY_NAME_LENGTH} characters and refuses one more, by length`, async () => {
    await transit.createKey('a'.repeat(MAX_KEY_NAME_LENGTH));
    await expect(transit.createKey('a'.repeat(MAX_KEY_NAME_LENGTH + 1))).rejects.toMatchObject({
      code: 'invalid_request',
      message: `key name is longer than ${MAX_KEY_NAME_LENGTH} characters`,
    });
  });

  it.each([['a/b'], ['a b'], ['-lead'], ['trail.'], ['ключ'], ['a\u0000b'], ['..'], ['a:b']])(
    'refuses %j naming the allowed characters',
    async (name) => {
      await expect(transit.createKey(name)).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining("use letters, digits, '_', and inner '-' or '.'"),
      });
    },
  );

  it('refuses an empty name', async () => {
    await expect(transit.createKey('')).rejects.toMatchObject({ message: 'missing key name' });
  });

  it('every operation applies the same rule (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 140, unit: 'binary' }), async (name) => {
        const ok = name.length <= MAX_KEY_NAME_LENGTH && VALID.test(name);
        const got = await transit.createKey(name).then(
          () => 'ok',
          (e: unknown) => (e instanceof TransitError ? e.code : String(e)),
        );
        expect(got).toBe(ok ? 'ok' : 'invalid_request');
        if (!ok) {
          await expect(transit.encrypt(name, { plaintext: PT })).rejects.toMatchObject({
            code: 'invalid_request',
          });
          await expect(transit.rotateKey(name)).rejects.toMatchObject({ code: 'invalid_request' });
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('maximum versions per key', () => {
  const MAX = 5;
  it('defaults to 100,000 and refuses a bad setting', () => {
    expect(DEFAULT_MAX_KEY_VERSIONS).toBe(100_000);
    for (const bad of [0, -3, 2.5]) {
      expect(() => new Transit({ maxKeyVersions: bad })).toThrow(
        'maxKeyVersions must be a positive integer',
      );
    }
  });

  it('rotate stops at the limit with a clear message; trimming frees room', async () => {
    const { storage, writes } = await counted();
    const t = new Transit({ storage, maxKeyVersions: MAX, autoRotate: false });
    await t.createKey('k');
    for (let i = 2; i <= MAX; i++) expect((await t.rotateKey('k')).latest_version).toBe(i);
    await settle();
    const before = writes();
    await expect(t.rotateKey('k')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/already has 5 versions, the maximum per key is 5: .*trim/),
    });
    await settle();
    expect(writes()).toBe(before);
    await t.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 3 });
    await t.trimKey('k', { min_available_version: 3 });
    expect((await t.rotateKey('k')).latest_version).toBe(MAX + 1);
    expect((await t.rotateKey('k')).latest_version).toBe(MAX + 2);
    await expect(t.rotateKey('k')).rejects.toMatchObject({ code: 'invalid_request' });
    await t.close();
  });

  it('auto-rotation reports the refusal and keeps going with other keys', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const t = new Transit({ maxKeyVersions: 2, autoRotate: false, clock });
    await t.createKey('full', { auto_rotate_period: '1h' });
    await t.rotateKey('full');
    await t.createKey('room', { auto_rotate_period: '1h' });
    clock.advance(2 * 3600_000);
    const pass = await t.runAutoRotation();
    expect(pass.rotated).toEqual(['room']);
    expect(pass.errors).toEqual([
      { name: 'full', error: expect.stringContaining('the maximum per key is 2') },
    ]);
    await t.close();
  });

  it('restore refuses a backup with more versions than the limit', async () => {
    const src = new Transit({ autoRotate: false });
    await src.createKey('b', { exportable: true, allow_plaintext_backup: true });
    for (let i = 0; i < MAX; i++) await src.rotateKey('b');
    const { backup } = await src.backupKey('b');
    const { storage, writes } = await counted();
    const dst = new Transit({ storage, maxKeyVersions: MAX, autoRotate: false });
    await settle();
    const before = writes();
    await expect(dst.restoreKey({ backup })).rejects.toMatchObject({
      code: 'invalid_request',
      message: `the backup holds ${MAX + 1} versions, the maximum per key is ${MAX}`,
    });
    await settle();
    expect(writes()).toBe(before);
    const roomy = new Transit({ storage, maxKeyVersions: MAX + 1, autoRotate: false });
    await roomy.restoreKey({ backup });
    expect((await roomy.readKey('b')).latest_version).toBe(MAX + 1);
    await Promise.all([src.close(), dst.close(), roomy.close()]);
  });
});
