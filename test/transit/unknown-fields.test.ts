/**
 * Undeclared request fields in the library: ignored, as over HTTP, with
 * Vault's warning `Endpoint ignored these unrecognized parameters: [a b]`
 * beside the result (`warningsOf`), before the endpoint's own warnings. A
 * JavaScript caller's misspelt field (`key_verison`) is visible instead of
 * silently taking the default.
 */
import { type Transit, warningsOf } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine } from './support.js';

const PT = b64('hello');
const warning = (...names: string[]) =>
  `Endpoint ignored these unrecognized parameters: [${names.join(' ')}]`;
/** Loosen a typed call: a JavaScript caller passes whatever it likes. */
const loose = <T>(x: T) => x as never;

let t: Transit;
let ciphertext: string;
let hmacOf: string;
let signature: string;

beforeAll(async () => {
  t = makeEngine().transit;
  await t.createKey('k', { exportable: true, allow_plaintext_backup: true });
  await t.createKey('ec', { type: 'ecdsa-p256' });
  await t.createKey('wrap', { type: 'rsa-2048' });
  await t.createKey('trim');
  await t.updateKeyConfig('trim', { min_encryption_version: 1, min_decryption_version: 1 });
  ciphertext = (await t.encrypt('k', { plaintext: PT })).ciphertext;
  hmacOf = (await t.hmac('k', { input: PT })).hmac;
  signature = (await t.sign('ec', { input: PT })).signature;
});

describe('library requests with undeclared fields', () => {
  // Each call once with two extra fields (reported sorted), once without.
  const calls: [string, (extra: Record<string, unknown>) => Promise<object>][] = [
    ['encrypt', (x) => t.encrypt('k', loose({ plaintext: PT, ...x }))],
    ['decrypt', (x) => t.decrypt('k', loose({ ciphertext, ...x }))],
    ['rewrap', (x) => t.rewrap('k', loose({ ciphertext, ...x }))],
    ['hmac', (x) => t.hmac('k', loose({ input: PT, ...x }))],
    ['verify', (x) => t.verify('k', loose({ input: PT, hmac: hmacOf, ...x }))],
    ['sign', (x) => t.sign('ec', loose({ input: PT, ...x }))],
    ['verify signature', (x) => t.verify('ec', loose({ input: PT, signature, ...x }))],
    ['readKey', (x) => t.readKey('k', loose(x))],
    ['listKeys', (x) => t.listKeys(loose(x))],
    ['updateKeyConfig', (x) => t.updateKeyConfig('k', loose({ deletion_allowed: false, ...x }))],
    ['trimKey', (x) => t.trimKey('trim', loose({ min_available_version: 1, ...x }))],
    ['generateDataKey', (x) => t.generateDataKey('k', 'wrapped', loose(x))],
    ['exportKey', (x) => t.exportKey('encryption-key', 'k', 1, loose(x))],
    ['signCsr', (x) => t.signCsr('ec', loose(x))],
    ['hash', (x) => t.hash(loose({ input: PT, ...x }))],
    ['randomBytes', (x) => t.randomBytes(loose(x))],
    ['byokExport', (x) => t.byokExport('wrap', 'k', loose(x))],
    ['writeKeysConfig', (x) => t.writeKeysConfig(loose(x))],
    ['writeCacheConfig', (x) => t.writeCacheConfig(loose(x))],
  ];

  it.each(calls)('%s: warns once, sorted, and answers as without them', async (_, call) => {
    const plain = await call({});
    expect(warningsOf(plain)).toEqual([]);
    const extra = await call({ zeta: 1, key_verison: 2 });
    expect(warningsOf(extra)).toEqual([warning('key_verison', 'zeta')]);
    expect(Object.keys(extra)).toEqual(Object.keys(plain));
    // The warning stays with that one result: the next plain call has none.
    expect(warningsOf(await call({}))).toEqual([]);
  });

  it('createKey: the unknown-field warning comes before the endpoint’s own', async () => {
    const made = await t.createKey('fresh', loose({ tpye: 'rsa-2048' }));
    expect(made.type).toBe('aes256-gcm96');
    expect(warningsOf(made)).toEqual([warning('tpye')]);
    const again = await t.createKey('fresh', loose({ tpye: 'rsa-2048' }));
    expect(warningsOf(again)).toEqual([warning('tpye'), 'key fresh already existed']);
    expect(warningsOf(await t.createKey('fresh'))).toEqual(['key fresh already existed']);
  });

  it('batch requests: the top-level fields are checked, not the items (as Vault)', async () => {
    const out = await t.encrypt(
      'k',
      loose({ batch_input: [{ plaintext: PT, extra: 1 }], extra_top: true }),
    );
    expect(warningsOf(out)).toEqual([warning('extra_top')]);
  });

  it('declared fields, undefined values and the library-only fields are not reported', async () => {
    const enc = await t.encrypt('k', { plaintext: PT, context: undefined, key_version: 0 });
    expect(warningsOf(enc)).toEqual([]);
    expect(warningsOf(await t.encrypt('k', loose({ plaintext: PT, stray: undefined })))).toEqual(
      [],
    );
    // Declared by the library types though not by the HTTP routes.
    const rewrapped = await t.rewrap('k', { ciphertext, partial_failure_response_code: 400 });
    expect(warningsOf(rewrapped)).toEqual([]);
    expect(warningsOf(await t.byokExport('wrap', 'k', { version: 1 }))).toEqual([]);
  });

  it('a request that is not a plain object is still refused, not scanned', async () => {
    await expectError(
      t.encrypt('k', loose(new Map([['plaintext', PT]]))),
      'invalid_request',
      'request must be an object',
    );
    await expectError(
      t.hmac('k', loose(Object.assign(new Uint8Array(4), { input: PT }))),
      'invalid_request',
      'request must be an object',
    );
  });

  it('a refused request is refused as before, whatever else it carries', async () => {
    await expectError(
      t.encrypt('k', loose({ plaintxt: PT })),
      'invalid_request',
      /missing plaintext/,
    );
  });
});
