/**
 * The engine's metrics (src/transit/metrics.ts): crypto operations by
 * operation and key type (each batch item counts), batch sizes, and the
 * parsed-key cache's hits, misses (including the one-second re-check) and
 * evictions. Key names never become labels.
 */
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';
import { RecordingMetrics } from './recording.js';

const OPS = 'transitkit_crypto_operations_total';
const BATCH = 'transitkit_batch_size';
const HITS = 'transitkit_key_cache_hits_total';
const MISSES = 'transitkit_key_cache_misses_total';
const EVICTIONS = 'transitkit_key_cache_evictions_total';
const PT = btoa('metrics');

describe('engine metrics', () => {
  it('counts every crypto operation by operation and key type', async () => {
    const m = new RecordingMetrics();
    const t = new Transit({ metrics: m, autoRotate: false });
    await t.createKey('aes-secret-name');
    await t.createKey('signer', { type: 'ecdsa-p256' });
    await t.createKey('mac', { type: 'hmac' });
    const { ciphertext } = (await t.encrypt('aes-secret-name', { plaintext: PT })) as {
      ciphertext: string;
    };
    await t.decrypt('aes-secret-name', { ciphertext });
    await t.rewrap('aes-secret-name', { ciphertext });
    await t.generateDataKey('aes-secret-name', 'plaintext', {});
    const { signature } = (await t.sign('signer', { input: PT })) as { signature: string };
    await t.verify('signer', { input: PT, signature });
    const { hmac } = (await t.hmac('mac', { input: PT })) as { hmac: string };
    await t.verify('mac', { input: PT, hmac });
    const at = (operation: string, key_type: string) => m.count(OPS, { operation, key_type });
    expect(at('encrypt', 'aes256-gcm96')).toBe(1);
    expect(at('decrypt', 'aes256-gcm96')).toBe(1);
    expect(at('rewrap', 'aes256-gcm96')).toBe(1);
    expect(at('datakey', 'aes256-gcm96')).toBe(1);
    expect(at('sign', 'ecdsa-p256')).toBe(1);
    expect(at('verify', 'ecdsa-p256')).toBe(1);
    expect(at('hmac', 'hmac')).toBe(1);
    expect(at('verify', 'hmac')).toBe(1);
    expect(m.series(OPS).join()).not.toContain('secret-name');
    // Single inputs record no batch size.
    expect(m.series(BATCH)).toEqual([]);
  });

  it('counts batch items one each and records the batch size', async () => {
    const m = new RecordingMetrics();
    const t = new Transit({ metrics: m, autoRotate: false });
    await t.createKey('k');
    const items = Array.from({ length: 7 }, () => ({ plaintext: PT }));
    const enc = (await t.encrypt('k', { batch_input: items })) as {
      batch_results: Array<{ ciphertext: string }>;
    };
    await t.decrypt('k', {
      batch_input: enc.batch_results.map((r) => ({ ciphertext: r.ciphertext })),
    });
    await t.hmac('k', { batch_input: [{ input: PT }, { input: PT }] });
    expect(m.count(OPS, { operation: 'encrypt', key_type: 'aes256-gcm96' })).toBe(7);
    expect(m.count(OPS, { operation: 'decrypt', key_type: 'aes256-gcm96' })).toBe(7);
    expect(m.observed(BATCH, { operation: 'encrypt' })).toEqual([7]);
    expect(m.observed(BATCH, { operation: 'decrypt' })).toEqual([7]);
    expect(m.observed(BATCH, { operation: 'hmac' })).toEqual([2]);
  });

  it('counts key cache hits, misses (the one-second re-check too) and evictions', async () => {
    const m = new RecordingMetrics();
    const clock = new FakeClock();
    const t = new Transit({ metrics: m, autoRotate: false, clock, cacheSize: 2 });
    for (const n of ['a', 'b', 'c']) await t.createKey(n);
    await t.encrypt('c', { plaintext: PT }); // loaded (and cached) once
    const before = { hits: m.count(HITS), misses: m.count(MISSES) };
    await t.encrypt('c', { plaintext: PT });
    await t.encrypt('c', { plaintext: PT });
    expect(m.count(HITS) - before.hits).toBe(2);
    expect(m.count(MISSES)).toBe(before.misses);
    clock.advance(1_500); // past the re-check age: storage is read again
    await t.encrypt('c', { plaintext: PT });
    expect(m.count(MISSES) - before.misses).toBe(1);
    // Three keys through a cache of two: the least recently used are evicted.
    const evicted = m.count(EVICTIONS);
    await t.encrypt('a', { plaintext: PT });
    await t.encrypt('b', { plaintext: PT });
    await t.encrypt('c', { plaintext: PT });
    expect(m.count(EVICTIONS)).toBeGreaterThan(evicted);
  });

  it('records nothing and costs nothing without metrics', async () => {
    const t = new Transit({ autoRotate: false });
    await t.createKey('k');
    await expect(t.encrypt('k', { plaintext: PT })).resolves.toHaveProperty('ciphertext');
  });

  it('refuses a metrics option that is not a Metrics', () => {
    expect(() => new Transit({ metrics: {} as never, autoRotate: false })).toThrow(
      /'metrics' must implement Metrics/,
    );
  });
});
