/**
 * `encrypt`, `decrypt` and `hmac` answer a cached key at once and continue in
 * `then` when the key or the version must be read from storage (no `await`
 * on the common path). Both paths give the same answers, and every failure,
 * on either path, is a rejected promise, never a synchronous throw.
 */
import { describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine } from './support.js';

/** A key of 20 versions (version 1 archived), and a second engine on the same storage with nothing cached. */
async function twoEngines() {
  const a = makeEngine();
  await a.transit.createKey('k');
  await a.transit.createKey('h', { type: 'hmac', key_size: 32 });
  const old = (await a.transit.encrypt('k', { plaintext: b64('old') })).ciphertext;
  const oldMac = (await a.transit.hmac('k', { input: b64('in') })).hmac;
  for (let i = 0; i < 19; i++) await a.transit.rotateKey('k');
  const fresh = () => makeEngine({ storage: a.storage, clock: a.clock }).transit;
  return { a: a.transit, fresh, old, oldMac };
}

/** `call()` returns a promise (it does not throw), and the promise rejects with `code`. */
async function rejects(
  call: () => Promise<unknown>,
  code: 'invalid_request' | 'not_found',
  msg?: string,
) {
  let p: Promise<unknown> | undefined;
  expect(() => {
    p = call();
  }).not.toThrow();
  expect(p).toBeInstanceOf(Promise);
  await expectError(p as Promise<unknown>, code, msg);
}

describe('cached and uncached call paths', () => {
  it('hmac: the same MAC from a cached key, an uncached key and an archived version', async () => {
    const { a, fresh, oldMac } = await twoEngines();
    const latest = (await a.hmac('k', { input: b64('in') })).hmac;
    expect(latest.startsWith('vault:v20:')).toBe(true);
    expect((await fresh().hmac('k', { input: b64('in') })).hmac).toBe(latest);
    // Version 1 is archived: read from storage by an engine that holds the key but not it.
    const b = fresh();
    await b.hmac('k', { input: b64('warm') });
    expect(await b.hmac('k', { input: b64('in'), key_version: 1 })).toEqual({
      hmac: oldMac,
      key_version: 1,
    });
    const batch = await fresh().hmac('k', {
      key_version: 1,
      batch_input: [{ input: b64('in') }, { input: '!' }, { input: b64('in') }],
    });
    expect(batch.batch_results.map((r) => r.hmac ?? r.error)).toEqual([
      oldMac,
      'unable to decode input as base64: illegal base64 data at input byte 0',
      oldMac,
    ]);
    const hmacKey = await fresh().hmac('h', { input: b64('in') });
    expect(hmacKey).toEqual(await a.hmac('h', { input: b64('in') }));
  });

  it('decrypt: the same plaintext from a cached key, an uncached key and an archived version', async () => {
    const { a, fresh, old } = await twoEngines();
    const latest = (await a.encrypt('k', { plaintext: b64('new') })).ciphertext;
    expect(await fresh().decrypt('k', { ciphertext: latest })).toEqual({ plaintext: b64('new') });
    expect(await fresh().decrypt('k', { ciphertext: old })).toEqual({ plaintext: b64('old') });
    const b = fresh();
    await b.decrypt('k', { ciphertext: latest });
    expect(await b.decrypt('k', { ciphertext: old })).toEqual({ plaintext: b64('old') });
    expect(await a.decrypt('k', { ciphertext: old })).toEqual({ plaintext: b64('old') });
  });

  it('encrypt: an uncached existing key, an archived version, and upsert', async () => {
    const { a, fresh } = await twoEngines();
    const b = fresh();
    const r = await b.encrypt('k', { plaintext: b64('x') });
    expect(r.key_version).toBe(20);
    const v1 = await fresh().encrypt('k', { plaintext: b64('y'), key_version: 1 });
    expect(v1.ciphertext.startsWith('vault:v1:')).toBe(true);
    expect(await a.decrypt('k', { ciphertext: r.ciphertext })).toEqual({ plaintext: b64('x') });
    expect(await a.decrypt('k', { ciphertext: v1.ciphertext })).toEqual({ plaintext: b64('y') });
    const created = await b.encrypt('new', { plaintext: b64('z') });
    expect(await fresh().decrypt('new', { ciphertext: created.ciphertext })).toEqual({
      plaintext: b64('z'),
    });
  });

  it('every failure is a rejected promise, on the cached and the uncached path', async () => {
    const { a, fresh } = await twoEngines();
    for (const t of [a, fresh()]) {
      await rejects(() => t.hmac('k', { input: '!' }), 'invalid_request');
      await rejects(
        () => t.hmac('nope', { input: b64('x') }),
        'invalid_request',
        'encryption key not found',
      );
      await rejects(() => t.hmac('k', { input: b64('x'), key_version: 21 }), 'invalid_request');
      await rejects(() => t.hmac('k', { input: b64('x'), algorithm: 'md5' }), 'invalid_request');
      await rejects(() => t.decrypt('k', { ciphertext: 'vault:v1:AAAA' }), 'invalid_request');
      await rejects(() => t.decrypt('nope', { ciphertext: 'vault:v1:AAAA' }), 'invalid_request');
      await rejects(() => t.encrypt('k', { plaintext: '!' }), 'invalid_request');
      await rejects(
        () => t.encrypt('k', { plaintext: b64('x'), key_version: 21 }),
        'invalid_request',
      );
      await rejects(
        () => t.encrypt('nope', { plaintext: b64('x') }, { upsert: false }),
        'invalid_request',
      );
      await rejects(() => t.hmac('bad name!', { input: b64('x') }), 'invalid_request');
    }
  });
});
