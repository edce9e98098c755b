/**
 * The PKI codecs (`src/crypto/pki/`): round trips of every encoding, byte
 * identity with OpenSSL's own encodings (node KeyObject export and the
 * `openssl` CLI), Vault's two PKCS#8 edge formats (import-keys.json), the
 * `openssl` CLI accepting what we emit, our parsing of what `openssl genpkey`
 * makes (then sign on each backend and verify with `openssl`), and
 * `invalid_request` errors without key material for malformed input.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as asn1js from 'asn1js';
import { AlgorithmIdentifier, ECPrivateKey, PrivateKeyInfo } from 'pkijs';
import { afterAll, describe, expect, it } from 'vitest';
import type { EcCurve } from '../../src/crypto/asymmetric-backend.js';
import { nodeAsymmetric } from '../../src/crypto/node/asymmetric.js';
import {
  decodePkcs1PrivateKey,
  decodePkcs1PublicKey,
  decodePkcs8PrivateKey,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  decodeSec1PrivateKey,
  decodeSpki,
  encodePkcs1PrivateKey,
  encodePkcs1PublicKey,
  encodePkcs8PrivateKey,
  encodeSec1PrivateKey,
  encodeSpki,
  pemDecode,
  pemEncode,
} from '../../src/crypto/pki/keys.js';
import { isTransitError } from '../../src/errors.js';
import {
  BACKENDS,
  ecKey,
  fromB64,
  fromHex,
  generatedMaterials,
  loadFixture,
  rsaKey,
  toHex,
  utf8,
} from './asymmetric-helpers.js';

const OPENSSL = '/usr/bin/openssl';
const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-pki-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function tmp(content: string | Uint8Array, ext = 'pem'): string {
  const f = path.join(dir, `f${fileNo++}.${ext}`);
  writeFileSync(f, content);
  return f;
}
const openssl = (...args: string[]): string =>
  execFileSync(OPENSSL, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const CURVES: readonly EcCurve[] = ['p256', 'p384', 'p521'];
const OPENSSL_CURVE: Record<EcCurve, string> = { p256: 'P-256', p384: 'P-384', p521: 'P-521' };
const MSG = utf8('the quick brown fox');
const sha256 = (m: Uint8Array): Uint8Array =>
  new Uint8Array(createHash('sha256').update(m).digest());

describe('round trips and byte identity with OpenSSL', () => {
  it('PKCS#8, SPKI, PKCS#1 and SEC 1 encode/decode losslessly and match node:crypto (OpenSSL) exports', async () => {
    for (const [what, priv, pub] of await generatedMaterials()) {
      const p8 = encodePkcs8PrivateKey(priv);
      expect(decodePkcs8PrivateKey(p8), what).toEqual(priv);
      const spki = encodeSpki(pub);
      expect(decodeSpki(spki), what).toEqual(pub);
      const ko = createPrivateKey({ key: Buffer.from(p8), format: 'der', type: 'pkcs8' });
      expect(toHex(ko.export({ format: 'der', type: 'pkcs8' })), what).toBe(toHex(p8));
      expect(toHex(createPublicKey(ko).export({ format: 'der', type: 'spki' })), what).toBe(
        toHex(spki),
      );
      expect(decodePublicKeyPem(pemEncode(spki, 'PUBLIC KEY'))).toEqual(pub);
      expect(decodePrivateKeyPem(pemEncode(p8, 'PRIVATE KEY'))).toEqual(priv);
      if (priv.type === 'rsa' && pub.type === 'rsa') {
        const p1 = encodePkcs1PrivateKey(priv.key);
        expect(decodePkcs1PrivateKey(p1)).toEqual(priv.key);
        expect(toHex(ko.export({ format: 'der', type: 'pkcs1' }))).toBe(toHex(p1));
        expect(decodePkcs1PublicKey(encodePkcs1PublicKey(pub.key))).toEqual(pub.key);
        expect(decodePrivateKeyPem(pemEncode(p1, 'RSA PRIVATE KEY'))).toEqual(priv);
      }
      if (priv.type === 'ec') {
        const sec1 = encodeSec1PrivateKey(priv.key);
        expect(decodeSec1PrivateKey(sec1)).toEqual(priv.key);
        expect(
          decodeSec1PrivateKey(
            encodeSec1PrivateKey(priv.key, { includeCurve: false }),
            priv.key.curve,
          ),
        ).toEqual(priv.key);
        expect(toHex(ko.export({ format: 'der', type: 'sec1' }))).toBe(toHex(sec1));
        expect(decodePrivateKeyPem(pemEncode(sec1, 'EC PRIVATE KEY'))).toEqual(priv);
      }
    }
  });

  it('PEM: 64-column lines, the given label, trailing newline (Go pem.EncodeToMemory)', () => {
    const der = new Uint8Array(200).map((_, i) => i);
    const pem = pemEncode(der, 'PUBLIC KEY');
    const lines = pem.split('\n');
    expect(lines[0]).toBe('-----BEGIN PUBLIC KEY-----');
    expect(lines.at(-2)).toBe('-----END PUBLIC KEY-----');
    expect(lines.at(-1)).toBe('');
    expect(lines.slice(1, -2).map((l) => l.length)).toEqual([64, 64, 64, 64, 12]); // 200 bytes = 268 base64 chars
    expect(pemDecode(pem, ['PUBLIC KEY']).der).toEqual(der);
    expect(pemDecode(pem.replaceAll('\n', '\r\n'), ['PUBLIC KEY']).der).toEqual(der);
  });
});

interface ImportFixture {
  keys: Array<{
    name: string;
    pkcs8_der_b64: string;
    pkcs8_pem: string;
    seed_hex?: string;
    public_key_hex?: string;
    equivalent_rfc8410_pkcs8_b64?: string;
    n_hex?: string;
    public_key_pem?: string;
    equivalent_rsaEncryption_pkcs8_b64?: string;
  }>;
}

describe('import-keys.json (Vault PKCS#8 edge formats)', () => {
  const fx = loadFixture<ImportFixture>('import-keys');
  const key = (name: string) => {
    const k = fx.keys.find((x) => x.name === name);
    if (k === undefined) throw new Error(`fixture ${name} missing`);
    return k;
  };

  it('NSS-format Ed25519 parses to the seed; both backends derive the stated public key', async () => {
    const k = key('nssFormattedEd25519Key');
    const parsed = decodePkcs8PrivateKey(fromB64(k.pkcs8_der_b64));
    expect(decodePrivateKeyPem(k.pkcs8_pem)).toEqual(parsed);
    if (parsed.type !== 'ed25519') throw new Error('expected Ed25519');
    expect(toHex(parsed.key.seed)).toBe(k.seed_hex);
    for (const [, b] of BACKENDS)
      expect(toHex(await b.ed25519PublicKey(parsed.key))).toBe(k.public_key_hex);
    expect(encodePkcs8PrivateKey(parsed)).toEqual(fromB64(k.equivalent_rfc8410_pkcs8_b64 ?? ''));
  });

  it('NSS variants: curve OID 1.3.101.110, or only in the inner [0] field, are accepted too', () => {
    const seed = fromHex(key('nssFormattedEd25519Key').seed_hex ?? '');
    for (const [outer, inner] of [
      ['1.3.101.110', undefined],
      [undefined, '1.3.6.1.4.1.11591.15.1'],
      [undefined, '1.3.101.110'],
    ] as const) {
      const ec = new ECPrivateKey({
        version: 1,
        privateKey: new asn1js.OctetString({ valueHex: seed }),
      });
      if (inner !== undefined) ec.namedCurve = inner;
      const alg = new AlgorithmIdentifier(
        outer === undefined
          ? { algorithmId: '1.2.840.10045.2.1' }
          : {
              algorithmId: '1.2.840.10045.2.1',
              algorithmParams: new asn1js.ObjectIdentifier({ value: outer }),
            },
      );
      const info = new PrivateKeyInfo({
        version: 0,
        privateKeyAlgorithm: alg,
        privateKey: new asn1js.OctetString({ valueHex: ec.toSchema().toBER() }),
      });
      expect(decodePkcs8PrivateKey(new Uint8Array(info.toSchema().toBER()))).toEqual({
        type: 'ed25519',
        key: { seed },
      });
    }
  });

  it('RSA key under the id-RSASSA-PSS OID parses as a normal RSA key', () => {
    const k = key('rsaPSSFormattedKey');
    const parsed = decodePkcs8PrivateKey(fromB64(k.pkcs8_der_b64));
    if (parsed.type !== 'rsa') throw new Error('expected RSA');
    expect(parsed.key.n.toString(16)).toBe(k.n_hex);
    expect(parsed.key.e).toBe(65537n);
    expect(pemEncode(encodeSpki({ type: 'rsa', key: parsed.key }), 'PUBLIC KEY')).toBe(
      k.public_key_pem,
    );
    expect(encodePkcs8PrivateKey(parsed)).toEqual(
      fromB64(k.equivalent_rsaEncryption_pkcs8_b64 ?? ''),
    );
  });
});

describe('ecdsa-fixed-keys.json PEMs', () => {
  it('the EC PRIVATE KEY PEMs of the Vault test comments re-encode byte for byte', () => {
    const fx = loadFixture<{ keys: Array<{ d_hex: string; pem_in_source_comment?: string }> }>(
      'ecdsa-fixed-keys',
    );
    for (const { d_hex, pem_in_source_comment: pem } of fx.keys) {
      if (pem === undefined) continue;
      const priv = decodePrivateKeyPem(pem);
      if (priv.type !== 'ec') throw new Error('expected EC');
      expect(priv.key.d).toBe(BigInt(`0x${d_hex}`));
      expect(pemEncode(encodeSec1PrivateKey(priv.key), 'EC PRIVATE KEY')).toBe(pem);
    }
  });
});

describe('openssl CLI interop', () => {
  it('openssl accepts every encoding we emit, and derives the same public key', async () => {
    for (const [what, priv, pub] of await generatedMaterials()) {
      const spkiPem = pemEncode(encodeSpki(pub), 'PUBLIC KEY');
      const p8 = tmp(pemEncode(encodePkcs8PrivateKey(priv), 'PRIVATE KEY'));
      openssl('pkey', '-in', p8, '-check', '-noout');
      expect(openssl('pkey', '-in', p8, '-pubout'), what).toBe(spkiPem);
      expect(openssl('pkey', '-pubin', '-in', tmp(spkiPem), '-pubout'), what).toBe(spkiPem);
      if (priv.type === 'rsa') {
        const f = tmp(pemEncode(encodePkcs1PrivateKey(priv.key), 'RSA PRIVATE KEY'));
        expect(openssl('rsa', '-in', f, '-check', '-noout')).toContain('RSA key ok');
      }
      if (priv.type === 'ec') {
        const f = tmp(pemEncode(encodeSec1PrivateKey(priv.key), 'EC PRIVATE KEY'));
        openssl('ec', '-in', f, '-check', '-noout');
        expect(openssl('pkey', '-in', f, '-pubout')).toBe(spkiPem);
      }
    }
  });

  it('we parse what `openssl genpkey` makes (PKCS#8 and traditional), sign on each backend, openssl verifies', async () => {
    const specs: Array<readonly [string, readonly string[]]> = [
      ['rsa', ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048']],
      ...CURVES.map((c): readonly [string, readonly string[]] => [
        c,
        ['-algorithm', 'EC', '-pkeyopt', `ec_paramgen_curve:${OPENSSL_CURVE[c]}`],
      ]),
      ['ed25519', ['-algorithm', 'ED25519']],
    ];
    const msgFile = tmp(MSG, 'bin');
    const digestFile = tmp(sha256(MSG), 'bin');
    for (const [what, args] of specs) {
      const pkcs8Pem = openssl('genpkey', ...args);
      const parsed = decodePrivateKeyPem(pkcs8Pem);
      expect(pemEncode(encodePkcs8PrivateKey(parsed), 'PRIVATE KEY'), what).toBe(pkcs8Pem);
      const keyFile = tmp(pkcs8Pem);
      if (parsed.type !== 'ed25519') {
        const traditional = openssl(
          parsed.type === 'rsa' ? 'rsa' : 'ec',
          '-in',
          keyFile,
          ...(parsed.type === 'rsa' ? ['-traditional'] : []),
        );
        expect(decodePrivateKeyPem(traditional), what).toEqual(parsed);
      }
      const pubFile = tmp(openssl('pkey', '-in', keyFile, '-pubout'));
      const verify = (sig: Uint8Array, ...opts: string[]): string =>
        openssl(
          'dgst',
          '-sha256',
          ...opts,
          '-verify',
          pubFile,
          '-signature',
          tmp(sig, 'sig'),
          msgFile,
        );
      const verifyDigest = (sig: Uint8Array, ...opts: string[]): string =>
        openssl(
          'pkeyutl',
          '-verify',
          '-pubin',
          '-inkey',
          pubFile,
          '-in',
          digestFile,
          '-sigfile',
          tmp(sig, 'sig'),
          '-pkeyopt',
          'digest:sha256',
          ...opts,
        );
      for (const [, b] of BACKENDS) {
        if (parsed.type === 'ec') {
          expect(
            verify(await b.ecdsaSign(parsed.key, 'sha256', { message: MSG }, 'der')),
          ).toContain('Verified OK');
          expect(
            verifyDigest(await b.ecdsaSign(parsed.key, 'sha256', { digest: sha256(MSG) }, 'der')),
          ).toContain('Signature Verified Successfully');
        } else if (parsed.type === 'rsa') {
          expect(verify(await b.rsaSignPkcs1(parsed.key, 'sha256', { message: MSG }))).toContain(
            'Verified OK',
          );
          expect(
            verifyDigest(await b.rsaSignPkcs1(parsed.key, 'sha256', { digest: sha256(MSG) })),
          ).toContain('Successfully');
          const pss = ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:auto'];
          expect(
            verify(await b.rsaSignPss(parsed.key, 'sha256', { message: MSG }, 32), ...pss),
          ).toContain('Verified OK');
          const pssDigest = [
            '-pkeyopt',
            'rsa_padding_mode:pss',
            '-pkeyopt',
            'rsa_pss_saltlen:auto',
          ];
          expect(
            verifyDigest(
              await b.rsaSignPss(parsed.key, 'sha256', { digest: sha256(MSG) }, 222),
              ...pssDigest,
            ),
          ).toContain('Successfully');
        } else {
          const sig = await b.ed25519Sign(parsed.key, MSG);
          expect(
            openssl(
              'pkeyutl',
              '-verify',
              '-pubin',
              '-inkey',
              pubFile,
              '-rawin',
              '-in',
              msgFile,
              '-sigfile',
              tmp(sig, 'sig'),
            ),
          ).toContain('Successfully');
        }
      }
    }
  });
});

describe('malformed input → invalid_request, without key material in the message', () => {
  it('every decoder refuses garbage, truncation, trailing data, wrong structures and bad values', async () => {
    const rsa = await rsaKey(nodeAsymmetric, 2048);
    const p8 = encodePkcs8PrivateKey({ type: 'rsa', key: rsa });
    const ec = await ecKey(nodeAsymmetric, 'p256');
    const spki = encodeSpki({ type: 'ec', key: ec });
    const badPoint = spki.slice();
    badPoint[badPoint.length - 1] = (badPoint[badPoint.length - 1] ?? 0) ^ 1;
    const cases: Array<readonly [string, () => unknown]> = [
      ['empty', () => decodePkcs8PrivateKey(new Uint8Array(0))],
      ['garbage', () => decodeSpki(utf8('not DER at all'))],
      ['truncated', () => decodePkcs8PrivateKey(p8.subarray(0, p8.length - 10))],
      ['trailing', () => decodePkcs8PrivateKey(new Uint8Array([...p8, 0]))],
      ['spki as pkcs8', () => decodePkcs8PrivateKey(spki)],
      ['pkcs8 as pkcs1', () => decodePkcs1PrivateKey(p8)],
      ['pkcs8 as sec1', () => decodeSec1PrivateKey(p8)],
      ['point off curve', () => decodeSpki(badPoint)],
      [
        'inconsistent rsa',
        () => decodePkcs1PrivateKey(encodePkcs1PrivateKey({ ...rsa, d: rsa.d + 2n })),
      ],
      [
        'swapped primes',
        () => decodePkcs1PrivateKey(encodePkcs1PrivateKey({ ...rsa, p: rsa.q, q: rsa.p })),
      ],
      ['ec scalar zero', () => decodeSec1PrivateKey(encodeSec1PrivateKey({ ...ec, d: 0n }))],
      ['no pem', () => decodePrivateKeyPem('hello')],
      ['wrong label', () => decodePublicKeyPem(pemEncode(p8, 'PRIVATE KEY'))],
      [
        'encrypted pem',
        () =>
          pemDecode(
            '-----BEGIN PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nAAAA\n-----END PRIVATE KEY-----\n',
            ['PRIVATE KEY'],
          ),
      ],
    ];
    const secrets = [
      rsa.d.toString(16),
      rsa.p.toString(16),
      ec.d.toString(16),
      Buffer.from(p8).toString('base64').slice(40, 80),
    ];
    for (const [what, run] of cases) {
      let err: unknown;
      try {
        run();
      } catch (e) {
        err = e;
      }
      expect(isTransitError(err, 'invalid_request'), `${what}: ${String(err)}`).toBe(true);
      const msg = (err as Error).message;
      for (const s of secrets) expect(msg.includes(s.slice(0, 16)), what).toBe(false);
    }
  });
});
