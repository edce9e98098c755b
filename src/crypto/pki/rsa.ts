/**
 * PKCS#1 (RFC 8017 Appendix A.1) `RSAPrivateKey` and `RSAPublicKey` through
 * `pkijs`, to and from the neutral {@link RsaPrivateKey}/{@link RsaPublicKey}.
 *
 * Encoding matches Go's `x509.MarshalPKCS1PrivateKey`/`MarshalPKCS1PublicKey`
 * (version 0, two primes, all CRT values) and OpenSSL byte for byte. Parsing
 * checks the key's internal consistency as Go's `ParsePKCS1PrivateKey` does
 * (`Validate`): p·q = n, e·d ≡ 1 modulo p−1 and q−1, and the CRT values. Only
 * two-prime keys are accepted (Vault never makes others).
 *
 * @module
 */
import { invert } from '@noble/curves/abstract/modular.js';
import { RSAPrivateKey, RSAPublicKey } from 'pkijs';
import { invalidRequest } from '../../errors.js';
import type { RsaPrivateKey, RsaPublicKey } from '../asymmetric-backend.js';
import { integer, parseWithSchema, readSmallInt, readUnsigned, toDer } from './der.js';

/** Smallest and largest modulus we parse (Vault: 2048..4096; Wycheproof/test keys go lower). */
const MIN_MODULUS_BITS = 512;
const MAX_MODULUS_BITS = 16384;

/** Checks shared by public and private keys. */
function checkPublic(n: bigint, e: bigint, what: string): void {
  const bits = n.toString(2).length;
  if (bits < MIN_MODULUS_BITS || bits > MAX_MODULUS_BITS || n % 2n === 0n) {
    throw invalidRequest(`${what}: unsupported RSA modulus`);
  }
  if (e < 3n || e % 2n === 0n || e >= n || e > 0xffffffffn)
    throw invalidRequest(`${what}: invalid RSA public exponent`);
}

/**
 * Consistency checks of a private key (Go `rsa.PrivateKey.Validate` plus the
 * CRT values, which Go recomputes and we store).
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkRsaPrivateKey(k: RsaPrivateKey, what: string): void {
  checkPublic(k.n, k.e, what);
  const { n, e, d, p, q, dp, dq, qi } = k;
  const bad =
    p <= 1n ||
    q <= 1n ||
    p * q !== n ||
    d <= 1n ||
    d >= n ||
    (e * d) % (p - 1n) !== 1n ||
    (e * d) % (q - 1n) !== 1n ||
    dp !== d % (p - 1n) ||
    dq !== d % (q - 1n) ||
    qi <= 0n ||
    qi >= p ||
    (qi * q) % p !== 1n;
  if (bad) throw invalidRequest(`${what}: inconsistent key values`);
}

/**
 * A full private key from N, E, D and the two primes, with Dp/Dq/Qinv
 * computed and the key validated. For Vault backups, whose
 * `Precomputed` values may be missing (Go recomputes them, reference §0.2).
 *
 * @example
 * ```ts
 * const key = completeRsaPrivateKey({ n: N, e: 65537n, d: D, p: P0, q: P1 });
 * ```
 * @throws TransitError `invalid_request` for inconsistent values.
 * @public
 */
export function completeRsaPrivateKey(
  k: Pick<RsaPrivateKey, 'n' | 'e' | 'd' | 'p' | 'q'>,
): RsaPrivateKey {
  const what = 'RSA private key';
  const { n, e, d, p, q } = k;
  if (p <= 1n || q <= 1n || d <= 0n) throw invalidRequest(`${what}: inconsistent key values`);
  let qi: bigint;
  try {
    qi = invert(q % p, p);
  } catch {
    throw invalidRequest(`${what}: inconsistent key values`);
  }
  const key: RsaPrivateKey = { n, e, d, p, q, dp: d % (p - 1n), dq: d % (q - 1n), qi };
  checkRsaPrivateKey(key, what);
  return key;
}

/**
 * PKCS#1 `RSAPrivateKey` DER of a key.
 *
 * @example
 * ```ts
 * const pem = pemEncode(encodePkcs1PrivateKey(key), 'RSA PRIVATE KEY');
 * ```
 * @public
 */
export function encodePkcs1PrivateKey(key: RsaPrivateKey): Uint8Array {
  const k = new RSAPrivateKey({
    version: 0,
    modulus: integer(key.n),
    publicExponent: integer(key.e),
    privateExponent: integer(key.d),
    prime1: integer(key.p),
    prime2: integer(key.q),
    exponent1: integer(key.dp),
    exponent2: integer(key.dq),
    coefficient: integer(key.qi),
  });
  return toDer(k.toSchema());
}

/**
 * Parse a PKCS#1 `RSAPrivateKey` (two-prime, version 0) and validate it.
 * @throws TransitError `invalid_request` for malformed or inconsistent input.
 * @public
 */
export function decodePkcs1PrivateKey(der: Uint8Array): RsaPrivateKey {
  const what = 'RSA private key';
  const r = parseWithSchema(
    der,
    RSAPrivateKey.schema({
      names: {
        version: 'version',
        modulus: 'n',
        publicExponent: 'e',
        privateExponent: 'd',
        prime1: 'p',
        prime2: 'q',
        exponent1: 'dp',
        exponent2: 'dq',
        coefficient: 'qi',
        otherPrimeInfosName: 'other',
      },
    }),
    what,
  );
  if (readSmallInt(r.version, what) !== 0 || r.other !== undefined) {
    throw invalidRequest(`${what}: only two-prime keys (version 0) are supported`);
  }
  const key: RsaPrivateKey = {
    n: readUnsigned(r.n, what),
    e: readUnsigned(r.e, what),
    d: readUnsigned(r.d, what),
    p: readUnsigned(r.p, what),
    q: readUnsigned(r.q, what),
    dp: readUnsigned(r.dp, what),
    dq: readUnsigned(r.dq, what),
    qi: readUnsigned(r.qi, what),
  };
  checkRsaPrivateKey(key, what);
  return key;
}

/**
 * PKCS#1 `RSAPublicKey` DER.
 * @public
 */
export function encodePkcs1PublicKey(key: RsaPublicKey): Uint8Array {
  return toDer(
    new RSAPublicKey({ modulus: integer(key.n), publicExponent: integer(key.e) }).toSchema(),
  );
}

/**
 * Parse a PKCS#1 `RSAPublicKey`.
 * @throws TransitError `invalid_request` for malformed input or an unusable key.
 * @public
 */
export function decodePkcs1PublicKey(der: Uint8Array): RsaPublicKey {
  const what = 'RSA public key';
  const r = parseWithSchema(
    der,
    RSAPublicKey.schema({ names: { modulus: 'n', publicExponent: 'e' } }),
    what,
  );
  const key = { n: readUnsigned(r.n, what), e: readUnsigned(r.e, what) };
  checkPublic(key.n, key.e, what);
  return key;
}
