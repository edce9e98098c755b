/**
 * Neutral asymmetric keys ↔ node:crypto `KeyObject`s, through JWK
 * (`createPrivateKey({ key: jwk, format: 'jwk' })`), cached in WeakMaps keyed
 * by the neutral key object so that the hot path converts each key once.
 * Ed25519 private keys go through PKCS#8 (node's JWK import wants the public
 * half, which node itself derives from the PKCS#8 seed).
 *
 * Key objects are treated as immutable: mutate one and the cache is stale.
 *
 * @module
 */
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type {
  EcCurve,
  EcPrivateKey,
  EcPublicKey,
  Ed25519PrivateKey,
  RsaPrivateKey,
  RsaPublicKey,
} from '../asymmetric-backend.js';
import {
  CURVE_BYTES,
  checkCurve,
  toBigInt,
  toBytes,
  toMinimalBytes,
} from '../asymmetric-checks.js';

/** JWK `crv` of each curve. @internal */
export const JWK_CURVE: Readonly<Record<EcCurve, string>> = {
  p256: 'P-256',
  p384: 'P-384',
  p521: 'P-521',
};

const b64u = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64url');
const big = (x: bigint): string => b64u(toMinimalBytes(x));
const fromB64u = (s: string | undefined): bigint => {
  if (s === undefined) throw new Error('node:crypto returned an incomplete JWK');
  return toBigInt(Buffer.from(s, 'base64url'));
};

const privateCache = new WeakMap<object, KeyObject>();
const publicCache = new WeakMap<object, KeyObject>();

function cached(map: WeakMap<object, KeyObject>, key: object, make: () => KeyObject): KeyObject {
  let k = map.get(key);
  if (k === undefined) {
    k = make();
    map.set(key, k);
  }
  return k;
}

function ecJwk(key: EcPublicKey): JsonWebKey {
  checkCurve(key.curve);
  const len = CURVE_BYTES[key.curve];
  return {
    kty: 'EC',
    crv: JWK_CURVE[key.curve],
    x: b64u(toBytes(key.x, len)),
    y: b64u(toBytes(key.y, len)),
  };
}

/** @internal */
export function ecPrivateKeyObject(key: EcPrivateKey): KeyObject {
  return cached(privateCache, key, () =>
    createPrivateKey({
      key: { ...ecJwk(key), d: b64u(toBytes(key.d, CURVE_BYTES[key.curve])) },
      format: 'jwk',
    }),
  );
}

/** @internal */
export function ecPublicKeyObject(key: EcPublicKey): KeyObject {
  return cached(publicCache, key, () => createPublicKey({ key: ecJwk(key), format: 'jwk' }));
}

/** @internal */
export function rsaPrivateKeyObject(key: RsaPrivateKey): KeyObject {
  return cached(privateCache, key, () =>
    createPrivateKey({
      key: {
        kty: 'RSA',
        n: big(key.n),
        e: big(key.e),
        d: big(key.d),
        p: big(key.p),
        q: big(key.q),
        dp: big(key.dp),
        dq: big(key.dq),
        qi: big(key.qi),
      },
      format: 'jwk',
    }),
  );
}

/** @internal */
export function rsaPublicKeyObject(key: RsaPublicKey): KeyObject {
  return cached(publicCache, key, () =>
    createPublicKey({ key: { kty: 'RSA', n: big(key.n), e: big(key.e) }, format: 'jwk' }),
  );
}

/**
 * The KeyObject of an Ed25519 seed: at once when cached, else once the PKCS#8
 * encoder is loaded. It is loaded on first use, not with the backend, so that
 * importing the package on Node does not load the ASN.1 and PKI libraries (and
 * their start-up cost) for an application that never signs.
 * @internal
 */
export function ed25519PrivateKeyObject(key: Ed25519PrivateKey): KeyObject | Promise<KeyObject> {
  const hit = privateCache.get(key);
  if (hit !== undefined) return hit;
  return import('../pki/keys.js').then(({ encodePkcs8PrivateKey }) =>
    cached(privateCache, key, () =>
      createPrivateKey({
        key: Buffer.from(encodePkcs8PrivateKey({ type: 'ed25519', key })),
        format: 'der',
        type: 'pkcs8',
      }),
    ),
  );
}

/** @internal */
export function ed25519PublicKeyObject(publicKey: Uint8Array): KeyObject {
  return cached(publicCache, publicKey, () =>
    createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(publicKey) }, format: 'jwk' }),
  );
}

/** The 32-byte public key of an Ed25519 private KeyObject. @internal */
export function ed25519PublicBytes(k: KeyObject): Uint8Array {
  const x = createPublicKey(k).export({ format: 'jwk' }).x;
  if (x === undefined) throw new Error('node:crypto returned an incomplete JWK');
  return new Uint8Array(Buffer.from(x, 'base64url'));
}

/** Neutral EC key from a node private KeyObject (and cache the KeyObject). @internal */
export function ecFromKeyObject(curve: EcCurve, k: KeyObject): EcPrivateKey {
  const jwk = k.export({ format: 'jwk' });
  const key: EcPrivateKey = { curve, d: fromB64u(jwk.d), x: fromB64u(jwk.x), y: fromB64u(jwk.y) };
  privateCache.set(key, k);
  return key;
}

/** Neutral RSA key from a node private KeyObject (and cache the KeyObject). @internal */
export function rsaFromKeyObject(k: KeyObject): RsaPrivateKey {
  const j = k.export({ format: 'jwk' });
  const key: RsaPrivateKey = {
    n: fromB64u(j.n),
    e: fromB64u(j.e),
    d: fromB64u(j.d),
    p: fromB64u(j.p),
    q: fromB64u(j.q),
    dp: fromB64u(j.dp),
    dq: fromB64u(j.dq),
    qi: fromB64u(j.qi),
  };
  privateCache.set(key, k);
  return key;
}

/** Neutral Ed25519 key from a node private KeyObject (and cache the KeyObject). @internal */
export function ed25519FromKeyObject(k: KeyObject): Ed25519PrivateKey {
  const d = k.export({ format: 'jwk' }).d;
  if (d === undefined) throw new Error('node:crypto returned an incomplete JWK');
  const key: Ed25519PrivateKey = { seed: new Uint8Array(Buffer.from(d, 'base64url')) };
  privateCache.set(key, k);
  return key;
}
