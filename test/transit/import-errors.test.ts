/**
 * Refused imports and the import_version / rotation rules: every refusal is
 * an `invalid_request` with a clear message that quotes no key material, and
 * leaves storage and the key list exactly as they were (no half-created key).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { Transit } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectRefusedCleanly,
  type MobilityPair,
  mobilityPair,
  wrapForImport,
} from './import-support.js';
import { b64, expectError } from './support.js';

let pair: MobilityPair;
type Engine = MobilityPair['engines'][number][1];
let t: Engine;
beforeAll(async () => {
  pair = await mobilityPair();
  t = (pair.engines[0] as MobilityPair['engines'][number])[1];
});

const pkcs8 = (k: { privateKey: import('node:crypto').KeyObject }) =>
  new Uint8Array(k.privateKey.export({ format: 'der', type: 'pkcs8' }));
const spkiPem = (k: { publicKey: import('node:crypto').KeyObject }) =>
  k.publicKey.export({ format: 'pem', type: 'spki' }).toString();
const flip = (blob: string, at: number): string => {
  const b = Buffer.from(blob, 'base64');
  b[at] = (b[at] as number) ^ 1;
  return b.toString('base64');
};

describe('refused imports leave nothing behind', () => {
  it('tampered, truncated and mis-hashed ciphertexts', async () => {
    const key = new Uint8Array(randomBytes(32));
    const blob = wrapForImport(pair.wrap, key);
    const raw = Buffer.from(blob, 'base64');
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['rsa part tampered', { ciphertext: flip(blob, 10) }, /failed to decrypt the wrapped/],
      ['kwp part tampered', { ciphertext: flip(blob, 520) }, /integrity check failed/],
      ['only the rsa part', { ciphertext: raw.subarray(0, 512).toString('base64') }, /too short/],
      [
        'truncated kwp',
        { ciphertext: raw.subarray(0, raw.length - 8).toString('base64') },
        /unwrap/,
      ],
      ['empty-ish', { ciphertext: 'AAAA' }, /too short/],
      ['not base64', { ciphertext: '%%%' }, /base64/],
      ['wrong hash_function', { ciphertext: blob, hash_function: 'SHA384' }, /hash_function/],
      [
        'unknown hash_function',
        { ciphertext: blob, hash_function: 'MD5' },
        /unknown hash function: MD5/,
      ],
    ];
    for (const [what, req, message] of cases) {
      await expectRefusedCleanly(
        t,
        pair.storage,
        () => t.importKey(`bad-${what.replace(/\W+/g, '-')}`, { type: 'aes256-gcm96', ...req }),
        message,
        [key],
      );
    }
  });

  it('material that does not fit the type', async () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ed = generateKeyPairSync('ed25519');
    const w = (m: Uint8Array) => wrapForImport(pair.wrap, m);
    const garbage = new Uint8Array(randomBytes(64));
    const cases: [string, string, Record<string, unknown>, RegExp, Uint8Array[]][] = [
      [
        'short-aes',
        'aes256-gcm96',
        { ciphertext: w(new Uint8Array(16)) },
        /invalid key size 16 bytes for key type aes256-gcm96/,
        [],
      ],
      [
        'long-aes128',
        'aes128-gcm96',
        { ciphertext: w(new Uint8Array(32)) },
        /invalid key size 32 bytes/,
        [],
      ],
      [
        'ec-as-ed',
        'ed25519',
        { ciphertext: w(pkcs8(p256)) },
        /invalid key type: expected ed25519/,
        [pkcs8(p256)],
      ],
      [
        'p256-as-p384',
        'ecdsa-p384',
        { ciphertext: w(pkcs8(p256)) },
        /invalid curve: expected P-384, got P-256/,
        [pkcs8(p256)],
      ],
      [
        'rsa2048-as-4096',
        'rsa-4096',
        { ciphertext: w(pkcs8(rsa)) },
        /invalid key size: expected 512 bytes, got 256 bytes/,
        [pkcs8(rsa)],
      ],
      ['ed-as-rsa', 'rsa-2048', { ciphertext: w(pkcs8(ed)) }, /invalid key type/, [pkcs8(ed)]],
      [
        'garbage-pkcs8',
        'ecdsa-p256',
        { ciphertext: w(garbage) },
        /error parsing asymmetric key/,
        [garbage],
      ],
      [
        'pkcs8-as-aes',
        'aes256-gcm96',
        { ciphertext: w(pkcs8(p256)) },
        /invalid key size/,
        [pkcs8(p256)],
      ],
      [
        'pem-for-aes',
        'aes256-gcm96',
        { public_key: spkiPem(p256) },
        /does not support public_key import/,
        [],
      ],
      ['bad-pem', 'ecdsa-p256', { public_key: 'not a pem' }, /error parsing public key/, []],
      ['rsa-pem-as-ec', 'ecdsa-p256', { public_key: spkiPem(rsa) }, /invalid key type/, []],
    ];
    for (const [name, type, req, message, secrets] of cases) {
      await expectRefusedCleanly(
        t,
        pair.storage,
        () => t.importKey(name, { type, ...req }),
        message,
        secrets,
      );
    }
  });

  it('bad requests', async () => {
    const blob = wrapForImport(pair.wrap, new Uint8Array(32));
    const pem = spkiPem(generateKeyPairSync('ec', { namedCurve: 'P-256' }));
    const cases: [Record<string, unknown>, RegExp][] = [
      // No `type` is aes256-gcm96 (Vault's default): 32 bytes of material are right for it.
      [
        { ciphertext: wrapForImport(pair.wrap, new Uint8Array(16)) },
        /invalid key size 16 bytes for key type aes256-gcm96/,
      ],
      [{ type: 'hmac', ciphertext: blob }, /hmac cannot be imported/],
      [{ type: 'nope', ciphertext: blob }, /unknown key type nope/],
      [{ type: 'ecdsa-p256', ciphertext: blob, public_key: pem }, /only one of/],
      [{ type: 'aes256-gcm96' }, /'ciphertext' or 'public_key'/],
      [{ type: 'aes256-gcm96', ciphertext: blob, derived: true }, /context/],
      [{ type: 'ecdsa-p256', public_key: pem, derived: true, context: b64('c') }, /derivation/],
      [
        { type: 'aes256-gcm96', ciphertext: blob, auto_rotate_period: '2h' },
        /allow_rotation must be set/,
      ],
      [{ type: 'aes256-gcm96', ciphertext: blob, convergent_encryption: true }, /convergent/],
      [
        { type: 'aes256-gcm96', ciphertext: blob, auto_rotate_period: '5m', allow_rotation: true },
        /at least an hour/,
      ],
    ];
    for (const [req, message] of cases) {
      await expectRefusedCleanly(t, pair.storage, () => t.importKey('bad', req as never), message);
    }
    await expectRefusedCleanly(
      t,
      pair.storage,
      () => t.importKey('a/b', { type: 'aes256-gcm96', ciphertext: blob }),
      /invalid key name/,
    );
  });

  it('an existing name, generated or imported, is refused before any unwrap', async () => {
    await t.createKey('exists');
    const blob = wrapForImport(pair.wrap, new Uint8Array(32));
    await expectRefusedCleanly(
      t,
      pair.storage,
      () => t.importKey('exists', { type: 'aes256-gcm96', ciphertext: blob }),
      /cannot be used with an existing key/,
    );
  });

  it('garbage backup blobs are refused cleanly too', async () => {
    for (const backup of [
      '%%%',
      b64('not json'),
      b64('{"policy":{"type":1,"name":"x","latest_version":1,"keys":{"1":{"ec_x":1,"ec_y":2}}}}'),
    ]) {
      await expectRefusedCleanly(
        t,
        pair.storage,
        () => t.restoreKey({ backup, name: 'garbage' }),
        /invalid backup/,
      );
    }
  });
});

describe('import_version', () => {
  it('adds versions to an imported symmetric key; old ciphertexts still decrypt', async () => {
    const w = () => wrapForImport(pair.wrap, new Uint8Array(randomBytes(32)));
    await t.importKey('iv-sym', { type: 'aes256-gcm96', ciphertext: w() });
    const v1 = (await t.encrypt('iv-sym', { plaintext: b64('one') })).ciphertext;
    await t.importKeyVersion('iv-sym', { ciphertext: w() });
    const info = await t.readKey('iv-sym');
    expect(info.latest_version).toBe(2);
    expect((await t.encrypt('iv-sym', { plaintext: b64('two') })).ciphertext).toMatch(/^vault:v2:/);
    expect((await t.decrypt('iv-sym', { ciphertext: v1 })).plaintext).toBe(b64('one'));
    await expectRefusedCleanly(
      t,
      pair.storage,
      () => t.importKeyVersion('iv-sym', { ciphertext: w(), version: 1 }),
      /does not support importing key versions/,
    );
    await expectRefusedCleanly(
      t,
      pair.storage,
      () =>
        t.importKeyVersion('iv-sym', { ciphertext: wrapForImport(pair.wrap, new Uint8Array(16)) }),
      /invalid key size 16/,
    );
  });

  it('fills a public-only latest version whose pair matches; a different key becomes a new version', async () => {
    const k = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await t.importKey('iv-fill', { type: 'ecdsa-p256', public_key: spkiPem(k) });
    await t.importKeyVersion('iv-fill', { ciphertext: wrapForImport(pair.wrap, pkcs8(k)) });
    expect((await t.readKey('iv-fill')).latest_version).toBe(1);
    await t.sign('iv-fill', { input: b64('x') });
    await t.importKeyVersion('iv-fill', { public_key: spkiPem(other) });
    await t.importKeyVersion('iv-fill', { ciphertext: wrapForImport(pair.wrap, pkcs8(k)) });
    expect((await t.readKey('iv-fill')).latest_version).toBe(3);
  });

  it('with version: only a matching private key for a public-only version', async () => {
    const k = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    await t.importKey('iv-ver', { type: 'ed25519', public_key: spkiPem(k) });
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { ciphertext: wrapForImport(pair.wrap, pkcs8(other)), version: 1 },
        /key pair does not match/,
      ],
      [{ public_key: spkiPem(k), version: 1 }, /cannot add a public key/],
      [{ ciphertext: wrapForImport(pair.wrap, pkcs8(k)), version: 2 }, /version 2 does not exist/],
    ];
    for (const [req, message] of cases) {
      await expectRefusedCleanly(
        t,
        pair.storage,
        () => t.importKeyVersion('iv-ver', req),
        message,
        [pkcs8(other), pkcs8(k)],
      );
    }
    await t.importKeyVersion('iv-ver', {
      ciphertext: wrapForImport(pair.wrap, pkcs8(k)),
      version: 1,
    });
    await expectRefusedCleanly(
      t,
      pair.storage,
      () =>
        t.importKeyVersion('iv-ver', {
          ciphertext: wrapForImport(pair.wrap, pkcs8(k)),
          version: 1,
        }),
      /private key imported/,
    );
  });

  it('refused for generated keys, missing keys and keys the engine rotated', async () => {
    const blob = () => wrapForImport(pair.wrap, new Uint8Array(randomBytes(32)));
    await t.createKey('iv-gen');
    await expectRefusedCleanly(
      t,
      pair.storage,
      () => t.importKeyVersion('iv-gen', { ciphertext: blob() }),
      /only be used with an imported key/,
    );
    await expectRefusedCleanly(
      t,
      pair.storage,
      () => t.importKeyVersion('iv-none', { ciphertext: blob() }),
      /no key found with name iv-none/,
    );
    await t.importKey('iv-rot', { type: 'aes256-gcm96', ciphertext: blob(), allow_rotation: true });
    await t.rotateKey('iv-rot');
    const info = await t.readKey('iv-rot');
    expect([info.latest_version, info.imported]).toEqual([2, false]);
    await expectRefusedCleanly(
      t,
      pair.storage,
      () => t.importKeyVersion('iv-rot', { ciphertext: blob() }),
      /only be used with an imported key/,
    );
  });

  it('a new version respects maxKeyVersions', async () => {
    const small = new Transit({ storage: pair.storage, maxKeyVersions: 1, autoRotate: false });
    const blob = () => wrapForImport(pair.wrap, new Uint8Array(randomBytes(32)));
    await small.importKey('iv-max', { type: 'aes256-gcm96', ciphertext: blob() });
    await expectRefusedCleanly(
      small,
      pair.storage,
      () => small.importKeyVersion('iv-max', { ciphertext: blob() }),
      /the maximum per key is 1/,
    );
  });

  it('rotate is refused for imported keys without allow_rotation', async () => {
    const blob = wrapForImport(pair.wrap, new Uint8Array(32));
    await t.importKey('no-rot', { type: 'aes256-gcm96', ciphertext: blob });
    await expectError(
      t.rotateKey('no-rot'),
      'invalid_request',
      'imported key no-rot does not allow rotation within Vault',
    );
    expect((await t.readKey('no-rot')).imported_key_allow_rotation).toBe(false);
  });
});
