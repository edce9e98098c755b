/**
 * Undeclared request fields in the library: ignored, as over HTTP, with
 * Vault's warning `Endpoint ignored these unrecognized parameters: [a b]`
 * beside the result (`warningsOf`), before the endpoint's own warnings. A
 * JavaScript caller's misspelt field (`key_verison`) is visible instead of
 * silently taking the default.
 */
import { Transit, warningsOf } from 'transitkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine } from './support.js';

const PT = b64('hello');
const warning = (...names: string[]) =>
  `Endpoint ignored these unrecognized parameters: [${names.join(' ')}]`;
/** Loosen a typed call: a JavaScript caller passes whatever it likes. */
const loose = <T>(x: T) => x as never;

let t: Transit;
/** The same keys in an engine with `unknownFields: 'reject'`. */
let strict: Transit;
let ciphertext: string;
let hmacOf: string;
let signature: string;

beforeAll(async () => {
  const engine = makeEngine();
  t = engine.transit;
  await t.createKey('k', { exportable: true, allow_plaintext_backup: true });
  await t.createKey('ec', { type: 'ecdsa-p256' });
  await t.createKey('wrap', { type: 'rsa-2048' });
  await t.createKey('trim');
  await t.updateKeyConfig('trim', { min_encryption_version: 1, min_decryption_version: 1 });
  strict = new Transit({ storage: engine.storage, autoRotate: false, unknownFields: 'reject' });
  ciphertext = (await t.encrypt('k', { plaintext: PT })).ciphertext;
  hmacOf = (await t.hmac('k', { input: PT })).hmac;
  signature = (await t.sign('ec', { input: PT })).signature;
});
afterAll(() => strict.close());

describe('library requests with undeclared fields', () => {
  // Each call once with two extra fields (reported sorted), once without.
  const calls: [string, (t: Transit, extra: Record<string, unknown>) => Promise<object>][] = [
    ['encrypt', (t, x) => t.encrypt('k', loose({ plaintext: PT, ...x }))],
    ['decrypt', (t, x) => t.decrypt('k', loose({ ciphertext, ...x }))],
    ['rewrap', (t, x) => t.rewrap('k', loose({ ciphertext, ...x }))],
    ['hmac', (t, x) => t.hmac('k', loose({ input: PT, ...x }))],
    ['verify', (t, x) => t.verify('k', loose({ input: PT, hmac: hmacOf, ...x }))],
    ['sign', (t, x) => t.sign('ec', loose({ input: PT, ...x }))],
    ['verify signature', (t, x) => t.verify('ec', loose({ input: PT, signature, ...x }))],
    ['readKey', (t, x) => t.readKey('k', loose(x))],
    ['listKeys', (t, x) => t.listKeys(loose(x))],
    ['updateKeyConfig', (t, x) => t.updateKeyConfig('k', loose({ deletion_allowed: false, ...x }))],
    ['trimKey', (t, x) => t.trimKey('trim', loose({ min_available_version: 1, ...x }))],
    ['generateDataKey', (t, x) => t.generateDataKey('k', 'wrapped', loose(x))],
    ['exportKey', (t, x) => t.exportKey('encryption-key', 'k', 1, loose(x))],
    ['signCsr', (t, x) => t.signCsr('ec', loose(x))],
    ['hash', (t, x) => t.hash(loose({ input: PT, ...x }))],
    ['randomBytes', (t, x) => t.randomBytes(loose(x))],
    ['byokExport', (t, x) => t.byokExport('wrap', 'k', loose(x))],
    ['writeKeysConfig', (t, x) => t.writeKeysConfig(loose(x))],
    ['writeCacheConfig', (t, x) => t.writeCacheConfig(loose(x))],
  ];

  it.each(calls)('%s: warns once, sorted, and answers as without them', async (_, call) => {
    const plain = await call(t, {});
    expect(warningsOf(plain)).toEqual([]);
    const extra = await call(t, { zeta: 1, key_verison: 2 });
    expect(warningsOf(extra)).toEqual([warning('key_verison', 'zeta')]);
    expect(Object.keys(extra)).toEqual(Object.keys(plain));
    // The warning stays with that one result: the next plain call has none.
    expect(warningsOf(await call(t, {}))).toEqual([]);
  });

  it.each(calls)(
    "%s with unknownFields 'reject': refused first, else as usual",
    async (_, call) => {
      await expectError(
        call(strict, { zeta: 1, key_verison: 2 }),
        'invalid_request',
        'unrecognized parameters: [key_verison zeta]',
      );
      expect(warningsOf(await call(strict, {}))).toEqual([]);
    },
  );

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

describe("unknownFields: 'reject'", () => {
  it('writes nothing: no key created, upserted, imported or restored', async () => {
    await expectError(strict.createKey('new-1', loose({ tpye: 'rsa-2048' })), 'invalid_request');
    await expectError(
      strict.encrypt('new-2', loose({ plaintext: PT, extra: 1 })),
      'invalid_request',
    );
    const { backup } = await t.backupKey('k');
    await expectError(
      strict.restoreKey(loose({ backup, name: 'new-3', extra: 1 })),
      'invalid_request',
      'unrecognized parameters: [extra]',
    );
    const { public_key } = (await t.readKey('ec')).keys['1'] as { public_key: string };
    await expectError(
      strict.importKey('new-4', loose({ type: 'ecdsa-p256', public_key, extra: 1 })),
      'invalid_request',
      'unrecognized parameters: [extra]',
    );
    expect((await strict.listKeys()).keys.filter((k) => k.startsWith('new-'))).toEqual([]);
    // The same calls without the field go through.
    await strict.restoreKey({ backup, name: 'new-3' });
    await strict.importKey('new-4', { type: 'ecdsa-p256', public_key });
    expect((await strict.listKeys()).keys.filter((k) => k.startsWith('new-'))).toEqual([
      'new-3',
      'new-4',
    ]);
  });

  it('refuses before any other check of the call', async () => {
    // The over-long name and the missing plaintext would be the errors without it.
    await expectError(
      strict.encrypt('x'.repeat(200), loose({ extra: 1 })),
      'invalid_request',
      'unrecognized parameters: [extra]',
    );
  });

  it("the option takes only 'warn' or 'reject'", () => {
    for (const unknownFields of ['strict', '', 1, true]) {
      expect(() => new Transit(loose({ unknownFields }))).toThrow(
        "'unknownFields' must be 'warn' or 'reject'",
      );
    }
  });

  it('warn mode: a method that returns nothing still runs (no result to carry the warning)', async () => {
    const { backup } = await t.backupKey('k');
    await t.restoreKey(loose({ backup, name: 'restored-warn', extra: 1 }));
    expect((await t.readKey('restored-warn')).name).toBe('restored-warn');
  });
});
