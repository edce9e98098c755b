/**
 * `transit.sign` without ticks (issue 18): once the signing code is loaded and
 * the engine has started, `Transit.sign` calls straight in, and one input whose
 * key and version are cached goes to the family with no item record and no
 * retry wrapper (it reads nothing, so nothing can change under it). Checked:
 *
 * - every refusal is a rejected promise, never a synchronous throw, with the
 *   same text on a fresh instance (signing code or engine not ready) as on a
 *   warm one;
 * - the fast path and the general one (a batch, a version read from storage,
 *   a derived key) give signatures node:crypto accepts, with the same fields;
 * - a step that reads storage is still run again when another instance changed
 *   the key under it: once when the key itself was read, once when only the
 *   archived version was (its key cached).
 */
import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, Transit } from '../../src/index.js';
import { racingInstances } from '../helpers/holding-view.js';

const FOX = Buffer.from('the quick brown fox').toString('base64');

/** The outcome of a call that must not throw synchronously. */
function outcome(call: () => Promise<unknown>): Promise<string> {
  let p: Promise<unknown>;
  try {
    p = call();
  } catch (err) {
    return Promise.resolve(`threw synchronously: ${(err as Error).message}`);
  }
  return p.then(
    () => 'signed',
    (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
  );
}

/** Requests refused before or after the key is found, each with a distinct text. */
const REFUSED: Array<[string, Record<string, unknown>]> = [
  ['bad name!', { input: FOX }],
  ['p256', { input: FOX, hash_algorithm: 'sha2-999' }],
  ['p256', { input: FOX, marshaling_algorithm: 'der' }],
  ['p256', { input: FOX, prehashed: 'maybe' }],
  ['p256', { input: FOX, signature_context: 'AAAA' }],
  ['p256', { input: 'not base64!' }],
  ['p256', { input: FOX, context: '***' }],
  ['p256', { input: FOX, key_version: 7 }],
  ['p256', { input: FOX, key_version: -1 }],
  ['p256', { input: FOX, key_version: 'one' }],
  ['p256', { input: 12 }],
  ['missing', { input: FOX }],
  ['aes', { input: FOX }],
  ['p256', { batch_input: 'nope' }],
];

async function fresh(storage: MemoryStorage): Promise<Transit> {
  return new Transit({ storage, autoRotate: false });
}

describe('transit.sign without ticks', () => {
  it('refuses with a rejection, never a throw, and the same texts cold and warm', async () => {
    const storage = new MemoryStorage();
    const setup = await fresh(storage);
    await setup.createKey('p256', { type: 'ecdsa-p256' });
    await setup.createKey('aes');
    const cold: string[] = [];
    for (const [name, req] of REFUSED) {
      // A new instance each time: the engine has not started yet.
      const t = await fresh(storage);
      cold.push(await outcome(() => t.sign(name, req as never)));
      await t.close();
    }
    const warm = await fresh(storage);
    expect(await outcome(() => warm.sign('p256', { input: FOX }))).toBe('signed');
    const hot: string[] = [];
    for (const [name, req] of REFUSED) hot.push(await outcome(() => warm.sign(name, req as never)));
    expect(hot).toEqual(cold);
    for (const text of hot) expect(text).toMatch(/^invalid_request: /);
    expect(new Set(hot).size).toBe(REFUSED.length);
    // The key is cached now: the checks still run on the fast path.
    expect(await outcome(() => warm.sign('p256', { input: FOX, key_version: 2 }))).toBe(
      'invalid_request: requested version for signing is higher than the latest key version',
    );
  });

  it('fast and general paths answer alike, and node:crypto accepts every signature', async () => {
    const t = await fresh(new MemoryStorage());
    await t.createKey('p256', { type: 'ecdsa-p256' });
    await t.rotateKey('p256');
    const pem = (await t.readKey('p256')).keys;
    const data = Buffer.from(FOX, 'base64');
    const accepts = (signature: string, version: number) => {
      const key = createPublicKey((pem[String(version)] as { public_key: string }).public_key);
      const sig = Buffer.from(signature.slice(`vault:v${version}:`.length), 'base64');
      return verify('sha256', data, key, sig);
    };
    const single = await t.sign('p256', { input: FOX });
    expect(Object.keys(single).sort()).toEqual(['key_version', 'signature']);
    expect(single.key_version).toBe(2);
    expect(accepts(single.signature, 2)).toBe(true);
    const older = await t.sign('p256', { input: FOX, key_version: 1 });
    expect(older.key_version).toBe(1);
    expect(accepts(older.signature, 1)).toBe(true);
    const jws = await t.sign('p256', { input: FOX, marshaling_algorithm: 'jws' });
    expect(jws.signature).toMatch(/^vault:v2:[A-Za-z0-9_-]{86}$/);
    expect(
      (
        await t.verify('p256', {
          input: FOX,
          signature: jws.signature,
          marshaling_algorithm: 'jws',
        })
      ).valid,
    ).toBe(true);
    const batch = await t.sign('p256', { batch_input: [{ input: FOX }, { input: '%%' }] });
    expect(batch.batch_results[0]?.key_version).toBe(2);
    expect(accepts(batch.batch_results[0]?.signature as string, 2)).toBe(true);
    expect(batch.batch_results[1]?.error).toMatch(/unable to decode input as base64/);
    // A missing input is the empty message, on the fast path too.
    const empty = await t.sign('p256', {} as { input: string });
    expect((await t.verify('p256', { input: '', signature: empty.signature })).valid).toBe(true);
  });

  it('a derived Ed25519 key still returns its public key (general path)', async () => {
    const t = await fresh(new MemoryStorage());
    await t.createKey('ed', { type: 'ed25519', derived: true });
    const context = Buffer.from('ctx').toString('base64');
    const out = (await t.sign('ed', { input: FOX, context })) as { public_key?: string };
    expect(typeof out.public_key).toBe('string');
    const again = (await t.sign('ed', { input: FOX, context })) as { public_key?: string };
    expect(again.public_key).toBe(out.public_key);
  });
});

describe('transit.sign: a step that read storage is still run again', () => {
  const setup = () => racingInstances('ecdsa-p256'); // early versions archived
  const TOO_OLD =
    'invalid_request: requested version for signing is less than the minimum encryption key version';

  for (const cached of [false, true]) {
    it(`an archived version trimmed meanwhile is refused by the policy (key ${cached ? 'cached' : 'read'})`, async () => {
      const { a, b, view } = await setup();
      if (cached) expect((await a.sign('k', { input: FOX })).key_version).toBe(20);
      view.armed = true;
      const signed = outcome(() => a.sign('k', { input: FOX, key_version: 2 }));
      await view.held();
      await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
      await b.trimKey('k', { min_available_version: 10 });
      view.release();
      expect(await signed).toBe(TOO_OLD);
    });
  }

  it('a batch reading an archived version runs again as a whole', async () => {
    const { a, b, view } = await setup();
    expect((await a.sign('k', { input: FOX })).key_version).toBe(20);
    view.armed = true;
    const signed = a.sign('k', { key_version: 2, batch_input: [{ input: FOX }] });
    await view.held();
    await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    await b.trimKey('k', { min_available_version: 10 });
    view.release();
    const { batch_results } = await signed;
    expect(`invalid_request: ${batch_results[0]?.error}`).toBe(TOO_OLD);
  });
});
