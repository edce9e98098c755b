/**
 * WebCrypto (`globalThis.crypto.subtle`) plumbing for the noble backend's RSA:
 * JWK conversion of the neutral keys, a per-key cache of imported CryptoKeys,
 * and key generation.
 *
 * WebCrypto binds the hash to the imported key and knows only SHA-1 and
 * SHA-2/256/384/512, so the cache is keyed by (algorithm, hash, private?).
 * Where WebCrypto is absent or lacks the hash, the callers in `./rsa.ts` take
 * the raw path instead.
 *
 * No `node:` import.
 *
 * @module
 */
import { base64urlnopad } from '@scure/base';
import type { RsaModulusBits, RsaPrivateKey, RsaPublicKey } from '../asymmetric-backend.js';
import { checkRsaBits, toBigInt, toMinimalBytes } from '../asymmetric-checks.js';
import type { HashName } from '../backend.js';

/** The WebCrypto RSA algorithms we use. @internal */
export type WebRsaAlgorithm = 'RSA-PSS' | 'RSASSA-PKCS1-v1_5' | 'RSA-OAEP';

/** WebCrypto's name for the hashes it supports. */
const WEB_HASH: Partial<Readonly<Record<HashName, string>>> = {
  sha1: 'SHA-1',
  sha256: 'SHA-256',
  sha384: 'SHA-384',
  sha512: 'SHA-512',
};

/** The platform SubtleCrypto, if any. @internal */
export function subtle(): SubtleCrypto | undefined {
  return (globalThis as { crypto?: Crypto }).crypto?.subtle;
}

/** WebCrypto's hash name, or `undefined` when WebCrypto cannot do `hash`. @internal */
export function webHash(hash: HashName): string | undefined {
  return subtle() === undefined ? undefined : WEB_HASH[hash];
}

const b64u = (x: bigint): string => base64urlnopad.encode(toMinimalBytes(x));
const fromB64u = (s: string | undefined): bigint => {
  if (s === undefined) throw new Error('WebCrypto returned an incomplete RSA JWK');
  return toBigInt(base64urlnopad.decode(s));
};

function isPrivate(key: RsaPublicKey): key is RsaPrivateKey {
  return typeof (key as Partial<RsaPrivateKey>).d === 'bigint';
}

/** The JWK of a key (private members only when `asPrivate`). */
function toJwk(key: RsaPublicKey, asPrivate: boolean): JsonWebKey {
  const jwk: JsonWebKey = { kty: 'RSA', n: b64u(key.n), e: b64u(key.e), ext: false };
  if (!asPrivate) return jwk;
  if (!isPrivate(key)) throw new TypeError('"key" expected an RSA private key');
  return {
    ...jwk,
    d: b64u(key.d),
    p: b64u(key.p),
    q: b64u(key.q),
    dp: b64u(key.dp),
    dq: b64u(key.dq),
    qi: b64u(key.qi),
  };
}

const cache = new WeakMap<object, Map<string, Promise<CryptoKey>>>();

/**
 * The CryptoKey for (key, algorithm, hash), imported once and cached by the
 * neutral key object. `hash` must be one WebCrypto supports.
 * @internal
 */
export function importRsa(
  key: RsaPublicKey,
  alg: WebRsaAlgorithm,
  hash: string,
  asPrivate: boolean,
): Promise<CryptoKey> {
  const s = subtle();
  if (s === undefined) throw new Error('WebCrypto is not available');
  let perKey = cache.get(key);
  if (perKey === undefined) {
    perKey = new Map();
    cache.set(key, perKey);
  }
  const id = `${alg}|${hash}|${asPrivate ? 'private' : 'public'}`;
  let ck = perKey.get(id);
  if (ck === undefined) {
    const usage: KeyUsage =
      alg === 'RSA-OAEP' ? (asPrivate ? 'decrypt' : 'encrypt') : asPrivate ? 'sign' : 'verify';
    ck = s.importKey('jwk', toJwk(key, asPrivate), { name: alg, hash }, false, [usage]);
    const entries = perKey;
    ck.catch(() => entries.delete(id));
    perKey.set(id, ck);
  }
  return ck;
}

/**
 * A new RSA key, e = 65537, through WebCrypto `generateKey` (which runs off the
 * event loop on Node and in browsers).
 * @internal
 */
export async function webGenerateRsa(bits: RsaModulusBits): Promise<RsaPrivateKey> {
  checkRsaBits(bits);
  const s = subtle();
  if (s === undefined) throw new Error('RSA key generation requires WebCrypto (crypto.subtle)');
  const pair = await s.generateKey(
    {
      name: 'RSASSA-PKCS1-v1_5',
      modulusLength: bits,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: 'SHA-256',
    },
    true,
    ['sign', 'verify'],
  );
  const jwk = await s.exportKey('jwk', pair.privateKey);
  return {
    n: fromB64u(jwk.n),
    e: fromB64u(jwk.e),
    d: fromB64u(jwk.d),
    p: fromB64u(jwk.p),
    q: fromB64u(jwk.q),
    dp: fromB64u(jwk.dp),
    dq: fromB64u(jwk.dq),
    qi: fromB64u(jwk.qi),
  };
}
