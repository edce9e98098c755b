/**
 * Export (reference §8, OpenBao `format`): every cell of the table that
 * applies, for known material, on both backends — the exact strings (PEM
 * labels, trimmed or kept trailing newline, base64), compared with what
 * OpenSSL (node:crypto) writes for the same keys, and parsed back by the
 * `openssl` CLI; version selection; exportability; Vault's refusals.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryStorage, Transit } from 'transitkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { fromHex, loadFixture, wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { ecMaterial, putKnownKey, rsaMaterial } from '../helpers/known-key.js';
import { expectError } from './support.js';

interface EcFixture {
  keys: Array<{
    key_type: string;
    x_decimal: string;
    y_decimal: string;
    d_decimal: string;
    public_key_pem: string;
  }>;
}
const P256 = loadFixture<EcFixture>('ecdsa-fixed-keys').keys[0] as EcFixture['keys'][number];
const AES = fromHex('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff');
const HMAC = fromHex('0f'.repeat(32));
const SEED = fromHex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const ED_PUB = fromHex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
const RSA = wycheproofRsa(2048);
const HMAC_B64 = Buffer.from(HMAC).toString('base64');
const SYMMETRIC_FORMAT = 'unknown format for HMAC key; supported values are `` or `raw`';

const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `openssl <args>` on a PEM file; returns stdout. */
function openssl(args: string[], pem: string): string {
  const file = path.join(dir, `k${Math.random().toString(36).slice(2)}.pem`);
  writeFileSync(file, pem);
  return execFileSync('openssl', [...args, '-in', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const storage = new MemoryStorage();
beforeAll(async () => {
  const ex = { exportable: true };
  await putKnownKey(storage, 'aes', [{ key: AES, hmac_key: HMAC }], ex);
  await putKnownKey(storage, 'mac', [{ key: HMAC }], { ...ex, type: 'hmac', key_size: 32 });
  await putKnownKey(
    storage,
    'ec',
    [
      {
        key: new Uint8Array(0),
        hmac_key: HMAC,
        asymmetric: ecMaterial(
          'p256',
          BigInt(P256.x_decimal),
          BigInt(P256.y_decimal),
          BigInt(P256.d_decimal),
        ),
      },
    ],
    { ...ex, type: 'ecdsa-p256' },
  );
  await putKnownKey(
    storage,
    'ed',
    [
      {
        key: new Uint8Array([...SEED, ...ED_PUB]),
        hmac_key: HMAC,
        asymmetric: { kind: 'ed25519', public: ED_PUB, private: { seed: SEED } },
      },
    ],
    { ...ex, type: 'ed25519' },
  );
  await putKnownKey(
    storage,
    'rsa',
    [{ key: new Uint8Array(0), hmac_key: HMAC, asymmetric: rsaMaterial(RSA) }],
    {
      ...ex,
      type: 'rsa-2048',
    },
  );
});

// What OpenSSL writes for the same keys.
const ecPriv = () =>
  createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: Buffer.from(BigInt(P256.x_decimal).toString(16).padStart(64, '0'), 'hex').toString(
        'base64url',
      ),
      y: Buffer.from(BigInt(P256.y_decimal).toString(16).padStart(64, '0'), 'hex').toString(
        'base64url',
      ),
      d: Buffer.from(BigInt(P256.d_decimal).toString(16).padStart(64, '0'), 'hex').toString(
        'base64url',
      ),
    },
    format: 'jwk',
  });
const edPriv = () =>
  createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), SEED]),
    format: 'der',
    type: 'pkcs8',
  });
const rsaPriv = async () => {
  const pem = (await new Transit({ storage, autoRotate: false }).exportKey('signing-key', 'rsa', 1))
    .keys['1'];
  return createPrivateKey(pem as string);
};
const pemOf = (k: ReturnType<typeof createPrivateKey>, type: 'pkcs8' | 'pkcs1' | 'sec1') =>
  k.export({ format: 'pem', type } as never) as string;
const derB64 = (k: ReturnType<typeof createPrivateKey>) =>
  (k.export({ format: 'der', type: 'pkcs8' }) as Buffer).toString('base64');
const spki = (k: ReturnType<typeof createPrivateKey>, format: 'pem' | 'der'): string =>
  format === 'pem'
    ? (createPublicKey(k).export({ format: 'pem', type: 'spki' }) as string)
    : (createPublicKey(k).export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');

describe.each([
  ['node', nodeBackend],
  ['noble', nobleBackend],
] as const)('%s backend', (_name, backend) => {
  const t = new Transit({ storage, crypto: backend, autoRotate: false });
  const one = async (type: Parameters<Transit['exportKey']>[0], name: string, format = '') =>
    (await t.exportKey(type, name, 1, { format })).keys['1'] as string;

  it('symmetric and hmac keys: base64 raw; der/pem refused; public-key is no key', async () => {
    for (const format of ['', 'raw']) {
      expect(await one('encryption-key', 'aes', format)).toBe(Buffer.from(AES).toString('base64'));
      expect(await one('hmac-key', 'aes', format)).toBe(HMAC_B64);
      expect(await one('hmac-key', 'mac', format)).toBe(HMAC_B64);
    }
    for (const format of ['der', 'pem']) {
      await expectError(one('encryption-key', 'aes', format), 'invalid_request', SYMMETRIC_FORMAT);
      await expectError(one('hmac-key', 'ec', format), 'invalid_request', SYMMETRIC_FORMAT);
    }
    await expectError(
      one('signing-key', 'aes'),
      'invalid_request',
      'signing not supported for the key',
    );
    await expectError(
      one('encryption-key', 'mac'),
      'invalid_request',
      'encryption not supported for the key',
    );
    await expectError(
      one('signing-key', 'mac'),
      'invalid_request',
      'signing not supported for the key',
    );
    await expectError(
      one('public-key', 'aes'),
      'invalid_request',
      'unknown key type aes256-gcm96 for export type public-key',
    );
    await expectError(
      one('certificate-chain', 'mac'),
      'invalid_request',
      'certificate chain not supported for keys that do not support signing',
    );
  });

  it('ECDSA: SEC 1 and PKIX PEM trimmed; PKCS#8 for der/pem; no raw', async () => {
    const k = ecPriv();
    const sec1 = await one('signing-key', 'ec');
    expect(sec1).toBe(pemOf(k, 'sec1').trim());
    expect(sec1.startsWith('-----BEGIN EC PRIVATE KEY-----\n')).toBe(true);
    expect(sec1.endsWith('-----END EC PRIVATE KEY-----')).toBe(true);
    expect(await one('signing-key', 'ec', 'der')).toBe(derB64(k));
    expect(await one('signing-key', 'ec', 'pem')).toBe(pemOf(k, 'pkcs8').trim());
    const pub = await one('public-key', 'ec');
    expect(pub).toBe(P256.public_key_pem.trim());
    expect(await one('public-key', 'ec', 'pem')).toBe(pub);
    expect(await one('public-key', 'ec', 'der')).toBe(spki(k, 'der'));
    for (const type of ['signing-key', 'public-key'] as const) {
      await expectError(
        one(type, 'ec', 'raw'),
        'invalid_request',
        'unknown key format for ec key; supported values are ``, `der`, or `pem`',
      );
    }
    await expectError(
      one('encryption-key', 'ec'),
      'invalid_request',
      'encryption not supported for the key',
    );
    expect(await one('hmac-key', 'ec')).toBe(HMAC_B64);
  });

  it('Ed25519: base64 seed ‖ pub and public key; PKCS#8 / PKIX for der/pem (trimmed)', async () => {
    const k = edPriv();
    for (const format of ['', 'raw']) {
      expect(await one('signing-key', 'ed', format)).toBe(
        Buffer.from([...SEED, ...ED_PUB]).toString('base64'),
      );
      expect(await one('public-key', 'ed', format)).toBe(Buffer.from(ED_PUB).toString('base64'));
    }
    expect(await one('signing-key', 'ed', 'der')).toBe(derB64(k));
    expect(await one('signing-key', 'ed', 'pem')).toBe(pemOf(k, 'pkcs8').trim());
    expect(await one('public-key', 'ed', 'der')).toBe(spki(k, 'der'));
    expect(await one('public-key', 'ed', 'pem')).toBe((spki(k, 'pem') as string).trim());
    await expectError(
      one('encryption-key', 'ed'),
      'invalid_request',
      'encryption not supported for the key',
    );
  });

  it('RSA: PKCS#1 and PKIX PEM with their trailing newline; PKCS#8 for der/pem; no raw', async () => {
    const k = await rsaPriv();
    for (const type of ['encryption-key', 'signing-key'] as const) {
      const pkcs1 = await one(type, 'rsa');
      expect(pkcs1).toBe(pemOf(k, 'pkcs1'));
      expect(pkcs1.startsWith('-----BEGIN RSA PRIVATE KEY-----\n')).toBe(true);
      expect(pkcs1.endsWith('-----END RSA PRIVATE KEY-----\n')).toBe(true);
      expect(await one(type, 'rsa', 'der')).toBe(derB64(k));
      expect(await one(type, 'rsa', 'pem')).toBe(pemOf(k, 'pkcs8'));
      await expectError(
        one(type, 'rsa', 'raw'),
        'invalid_request',
        'unknown key format for rsa key; supported values are ``, `der`, or `pem`',
      );
    }
    const pub = await one('public-key', 'rsa');
    expect(pub).toBe(spki(k, 'pem'));
    expect(pub.endsWith('-----END PUBLIC KEY-----\n')).toBe(true);
    expect(await one('public-key', 'rsa', 'pem')).toBe(pub);
    expect(await one('public-key', 'rsa', 'der')).toBe(spki(k, 'der'));
  });

  it('the openssl CLI parses every PEM we export', async () => {
    expect(openssl(['ec', '-noout', '-check'], await one('signing-key', 'ec'))).toBe('');
    expect(openssl(['rsa', '-noout', '-check'], await one('encryption-key', 'rsa'))).toMatch(
      /RSA key ok/,
    );
    for (const name of ['ec', 'ed', 'rsa']) {
      openssl(['pkey', '-noout'], await one('signing-key', name, 'pem'));
      openssl(['pkey', '-pubin', '-noout'], await one('public-key', name, 'pem'));
      // PKIX from the private key equals the exported public key.
      const derived = openssl(['pkey', '-pubout'], await one('signing-key', name, 'pem'));
      expect(derived.trim()).toBe((await one('public-key', name, 'pem')).trim());
    }
  });
});

describe('versions, exportability, refusals', () => {
  const t = new Transit({ storage: new MemoryStorage(), autoRotate: false });

  it('all versions (omitted), latest, N and vN; min_decryption_version; missing versions', async () => {
    await t.createKey('v', { type: 'ed25519', exportable: true });
    await t.rotateKey('v');
    await t.rotateKey('v');
    const all = await t.exportKey('public-key', 'v');
    expect(all.name).toBe('v');
    expect(all.type).toBe('ed25519');
    expect(Object.keys(all.keys)).toEqual(['1', '2', '3']);
    expect((await t.exportKey('public-key', 'v', 'latest')).keys).toEqual({ '3': all.keys['3'] });
    expect((await t.exportKey('public-key', 'v', 'v2')).keys).toEqual({ '2': all.keys['2'] });
    expect((await t.exportKey('public-key', 'v', '1')).keys).toEqual({ '1': all.keys['1'] });
    await t.updateKeyConfig('v', { min_decryption_version: 2 });
    expect(Object.keys((await t.exportKey('signing-key', 'v')).keys)).toEqual(['2', '3']);
    await expectError(
      t.exportKey('public-key', 'v', 1),
      'invalid_request',
      'version for export is below minimum decryption version',
    );
    await expectError(
      t.exportKey('public-key', 'v', 'v9'),
      'invalid_request',
      'version does not exist or cannot be found',
    );
    await expectError(
      t.exportKey('public-key', 'v', 'x1'),
      'invalid_request',
      'invalid key version',
    );
  });

  it('exportable is needed for all but public-key and certificate-chain', async () => {
    await t.createKey('closed', { type: 'ecdsa-p384' });
    for (const type of ['signing-key', 'hmac-key', 'encryption-key'] as const) {
      await expectError(
        t.exportKey(type, 'closed'),
        'invalid_request',
        'private key material is not exportable',
      );
    }
    expect((await t.exportKey('public-key', 'closed')).keys['1']).toMatch(
      /^-----BEGIN PUBLIC KEY-----/,
    );
    await expectError(
      t.exportKey('certificate-chain', 'closed'),
      'invalid_request',
      'selected key version does not have a certificate chain imported',
    );
  });

  it('unknown type or format, missing and soft-deleted keys', async () => {
    await expectError(
      t.exportKey('private-key' as never, 'v'),
      'invalid_request',
      'invalid export type: private-key',
    );
    // Not a string, nor one that converts to one: still a clear refusal, never a TypeError.
    await expectError(
      t.exportKey(Object.create(null) as never, 'v'),
      'invalid_request',
      'invalid export type: (object)',
    );
    await expectError(
      t.exportKey('public-key', 'v', undefined, { format: 'jwk' }),
      'invalid_request',
      'invalid format: jwk',
    );
    await expectError(t.exportKey('public-key', 'nope'), 'not_found');
    await t.createKey('soft', { type: 'ed25519', exportable: true });
    await t.softDeleteKey('soft');
    await expectError(
      t.exportKey('public-key', 'soft'),
      'invalid_request',
      'refusing to use soft-deleted key',
    );
  });

  it('derived ed25519: the signing key is the 64-byte HKDF key; no master public key is shown', async () => {
    await t.createKey('derived', { type: 'ed25519', derived: true, exportable: true });
    expect(
      Buffer.from((await t.exportKey('signing-key', 'derived', 1)).keys['1'] as string, 'base64'),
    ).toHaveLength(64);
    expect((await t.exportKey('public-key', 'derived', 1)).keys).toEqual({ '1': '' });
  });
});
