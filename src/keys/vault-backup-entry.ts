/**
 * One `KeyEntry` of Vault's backup blob (reference §6, §0.2), for every key
 * type: the symmetric `key`/`hmac_key`, and the asymmetric material in
 * Vault's own fields —
 * - ECDSA: `ec_x`, `ec_y`, `ec_d` as bare decimal numbers (`ec_d` null when
 *   public-only) and `public_key`, the PKIX PEM with its trailing newline;
 * - Ed25519: `key` = Go's 64-byte private key `seed ‖ pub` (null when
 *   public-only) and `public_key` = base64 of the 32-byte public key;
 * - RSA: `rsa_key` as Go's `rsa.PrivateKey` struct (`N`, `E`, `D`,
 *   `Primes`, `Precomputed{Dp, Dq, Qinv, CRTValues}`) and `rsa_public_key`
 *   `{N, E}` (written always, as current Vault does; 1.14 reads it);
 * - `certificate_chain` (base64 DER, end entity first) only when set, as
 *   Vault ≥ 1.15 writes it with `omitempty`.
 *
 * Reading validates everything a restore would otherwise trust: points on
 * the curve, `d·G`, RSA consistency (Dp/Dq/Qinv recomputed when absent), the
 * modulus size and curve of the type, and the Ed25519 seed against its public
 * key. Errors name the field, never its value.
 * @module
 */
import type { EcCurve, RsaPrivateKey, RsaPublicKey } from '../crypto/asymmetric-backend.js';
import { bitLength, ecPointBytes } from '../crypto/asymmetric-checks.js';
import { decodeEcPoint, ecPublicFromScalar } from '../crypto/pki/ec.js';
import { decodePublicKeyPem, encodeSpki, pemEncode } from '../crypto/pki/keys.js';
import { checkRsaPrivateKey, completeRsaPrivateKey } from '../crypto/pki/rsa.js';
import { encodeBase64, tryDecodeBase64 } from '../encoding.js';
import { invalidRequest, TransitError } from '../errors.js';
import type { AsymmetricMaterial } from './asymmetric/material.js';
import {
  bigField,
  bytesField,
  GoObject,
  GoStruct,
  intField,
  objectField,
  stringField,
} from './go-json.js';
import type { KeyTypeInfo } from './key-types.js';
import type { KeyVersion } from './policy.js';

const ZERO_TIME = '0001-01-01T00:00:00Z';
const WHAT = 'invalid backup';

/** Derives an Ed25519 public key from its seed (the crypto backend's). @internal */
export type Ed25519Public = (seed: Uint8Array) => Promise<Uint8Array>;

const rsaPublicStruct = (k: RsaPublicKey) =>
  new GoStruct([
    ['N', k.n],
    ['E', k.e],
  ]);

const rsaPrivateStruct = (k: RsaPrivateKey) =>
  new GoStruct([
    ['N', k.n],
    ['E', k.e],
    ['D', k.d],
    ['Primes', [k.p, k.q]],
    [
      'Precomputed',
      new GoStruct([
        ['Dp', k.dp],
        ['Dq', k.dq],
        ['Qinv', k.qi],
        ['CRTValues', []],
      ]),
    ],
  ]);

/** The asymmetric fields of an entry: ec_x, ec_y, ec_d, rsa_key, rsa_public_key, public_key. */
function asymmetricFields(m: AsymmetricMaterial | undefined): unknown[] {
  if (!m) return [null, null, null, null, null, ''];
  switch (m.kind) {
    case 'ec':
      return [m.public.x, m.public.y, m.private?.d ?? null, null, null, m.publicKeyPem];
    case 'rsa':
      return [
        null,
        null,
        null,
        m.private ? rsaPrivateStruct(m.private) : null,
        rsaPublicStruct(m.public),
        '',
      ];
    case 'ed25519':
      return [null, null, null, null, null, encodeBase64(m.public)];
  }
}

/**
 * Encode one version as Vault's `KeyEntry`; `undefined` gives the archive's
 * index-0 placeholder.
 * @internal
 */
export function encodeEntry(v: KeyVersion | undefined): GoStruct {
  const [ecX, ecY, ecD, rsaKey, rsaPublic, publicKey] = asymmetricFields(v?.asymmetric);
  const fields: [string, unknown][] = [
    ['key', v && v.key.length > 0 ? encodeBase64(v.key) : null],
    ['hmac_key', v ? encodeBase64(v.hmac_key) : null],
    ['time', v ? v.time : ZERO_TIME],
    ['ec_x', ecX],
    ['ec_y', ecY],
    ['ec_d', ecD],
    ['rsa_key', rsaKey],
    ['rsa_public_key', rsaPublic],
    ['public_key', publicKey],
    ['convergent_version', v ? v.convergent_version : 0],
    ['creation_time', v ? v.creation_time : 0],
  ];
  if (v?.certificate_chain && v.certificate_chain.length > 0) {
    fields.push(['certificate_chain', v.certificate_chain.map(encodeBase64)]);
  }
  return new GoStruct(fields);
}

function chainField(o: GoObject): Uint8Array[] | undefined {
  const v = o.get('certificate_chain');
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalidRequest(`${WHAT}: 'certificate_chain' must be an array`);
  const out = v.map((c) => {
    const b = typeof c === 'string' ? tryDecodeBase64(c) : undefined;
    if (!b || b.length === 0) throw invalidRequest(`${WHAT}: 'certificate_chain' is not base64`);
    return b;
  });
  return out.length > 0 ? out : undefined;
}

function ecMaterial(o: GoObject, curve: EcCurve): AsymmetricMaterial {
  const x = bigField(o, 'ec_x', WHAT);
  const y = bigField(o, 'ec_y', WHAT);
  if (x === undefined || y === undefined) throw invalidRequest(`${WHAT}: missing 'ec_x'/'ec_y'`);
  let pub: { curve: EcCurve; x: bigint; y: bigint };
  try {
    pub = decodeEcPoint(curve, ecPointBytes({ curve, x, y }), 'ec_x/ec_y');
  } catch {
    throw invalidRequest(`${WHAT}: 'ec_x'/'ec_y' is not a point of ${curve.toUpperCase()}`);
  }
  const publicKeyPem = pemEncode(encodeSpki({ type: 'ec', key: pub }), 'PUBLIC KEY');
  const stored = stringField(o, 'public_key', WHAT);
  if (stored !== '') {
    const m = decodePublicKeyPem(stored);
    if (m.type !== 'ec' || m.key.curve !== curve || m.key.x !== x || m.key.y !== y) {
      throw invalidRequest(`${WHAT}: 'public_key' does not match 'ec_x'/'ec_y'`);
    }
  }
  const d = bigField(o, 'ec_d', WHAT);
  if (d === undefined) return { kind: 'ec', public: pub, publicKeyPem };
  const derived = ecPublicFromScalar(curve, d, 'ec_d');
  if (derived.x !== x || derived.y !== y) {
    throw invalidRequest(`${WHAT}: 'ec_d' does not match 'ec_x'/'ec_y'`);
  }
  const priv = { ...pub, d };
  return { kind: 'ec', public: priv, private: priv, publicKeyPem };
}

function checkModulus(n: bigint, e: bigint, bits: number): void {
  if (Math.ceil(bitLength(n) / 8) !== bits / 8 || n % 2n === 0n) {
    throw invalidRequest(`${WHAT}: the RSA modulus is not ${bits} bits`);
  }
  if (e < 3n || e % 2n === 0n || e > 0xffffffffn) {
    throw invalidRequest(`${WHAT}: invalid RSA public exponent`);
  }
}

function rsaPrivate(r: GoObject, bits: number): RsaPrivateKey {
  const big = (o: GoObject, f: string) => {
    const v = bigField(o, f, `${WHAT}: rsa_key`);
    if (v === undefined) throw invalidRequest(`${WHAT}: rsa_key is missing '${f}'`);
    return v;
  };
  const primes = r.get('Primes');
  if (!Array.isArray(primes) || primes.length !== 2) {
    throw invalidRequest(`${WHAT}: rsa_key must have exactly two primes`);
  }
  const prime = (i: number) => big(new GoObject({ Primes: primes[i] }), 'Primes');
  const base = { n: big(r, 'N'), e: big(r, 'E'), d: big(r, 'D'), p: prime(0), q: prime(1) };
  // The size first: the consistency checks cost time proportional to it.
  checkModulus(base.n, base.e, bits);
  const pre = objectField(r, 'Precomputed', `${WHAT}: rsa_key`);
  const dp = pre ? bigField(pre, 'Dp', WHAT) : undefined;
  const dq = pre ? bigField(pre, 'Dq', WHAT) : undefined;
  const qi = pre ? bigField(pre, 'Qinv', WHAT) : undefined;
  if (dp === undefined || dq === undefined || qi === undefined) return completeRsaPrivateKey(base);
  const key = { ...base, dp, dq, qi };
  checkRsaPrivateKey(key, 'rsa_key');
  return key;
}

function rsaMaterial(o: GoObject, bits: number): AsymmetricMaterial {
  const full = objectField(o, 'rsa_key', WHAT);
  const pubObj = objectField(o, 'rsa_public_key', WHAT);
  let pub: RsaPublicKey | undefined;
  if (pubObj) {
    const n = bigField(pubObj, 'N', WHAT);
    const e = bigField(pubObj, 'E', WHAT);
    if (n === undefined || e === undefined) throw invalidRequest(`${WHAT}: rsa_public_key`);
    pub = { n, e };
  }
  if (full) {
    const key = rsaPrivate(full, bits);
    if (pub && (pub.n !== key.n || pub.e !== key.e)) {
      throw invalidRequest(`${WHAT}: 'rsa_public_key' does not match 'rsa_key'`);
    }
    return { kind: 'rsa', public: key, private: key };
  }
  if (!pub) throw invalidRequest(`${WHAT}: missing 'rsa_key'`);
  checkModulus(pub.n, pub.e, bits);
  return { kind: 'rsa', public: pub };
}

async function ed25519Material(
  o: GoObject,
  key: Uint8Array | undefined,
  derive: Ed25519Public,
): Promise<AsymmetricMaterial> {
  const stored = stringField(o, 'public_key', WHAT);
  const storedPub = stored === '' ? undefined : tryDecodeBase64(stored);
  if (stored !== '' && storedPub?.length !== 32) {
    throw invalidRequest(`${WHAT}: 'public_key' is not a 32-byte Ed25519 key`);
  }
  if (!key) {
    if (!storedPub) throw invalidRequest(`${WHAT}: missing Ed25519 'key'`);
    return { kind: 'ed25519', public: storedPub };
  }
  if (key.length !== 64) throw invalidRequest(`${WHAT}: Ed25519 'key' must be 64 bytes`);
  const seed = key.slice(0, 32);
  const pub = await derive(seed);
  const same = (a: Uint8Array, b: Uint8Array) =>
    a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(pub, key.subarray(32)) || (storedPub && !same(pub, storedPub))) {
    throw invalidRequest(`${WHAT}: Ed25519 'key' does not match its public key`);
  }
  return { kind: 'ed25519', public: pub, private: { seed } };
}

/** An entry with no material at all (the archive's index-0 placeholder). */
function isEmpty(o: GoObject, key: Uint8Array | undefined): boolean {
  const none = (f: string) => o.get(f) === undefined || o.get(f) === null;
  return (
    (!key || key.length === 0) &&
    none('ec_x') &&
    none('rsa_key') &&
    none('rsa_public_key') &&
    stringField(o, 'public_key', WHAT) === ''
  );
}

/**
 * Decode one `KeyEntry` of a key of type `type`; `undefined` for the empty
 * placeholder. Symmetric key sizes are checked by the caller (hmac depends on
 * the policy's `key_size`).
 * @throws TransitError `invalid_request` for malformed or inconsistent material.
 * @internal
 */
export async function decodeEntry(
  o: GoObject,
  type: KeyTypeInfo,
  ed25519Public: Ed25519Public,
): Promise<KeyVersion | undefined> {
  const key = bytesField(o, 'key', WHAT);
  if (isEmpty(o, key)) return undefined;
  let asymmetric: AsymmetricMaterial | undefined;
  try {
    if (type.family === 'ecdsa' && type.curve) asymmetric = ecMaterial(o, type.curve);
    else if (type.family === 'rsa' && type.rsaBits) asymmetric = rsaMaterial(o, type.rsaBits);
    else if (type.family === 'ed25519') asymmetric = await ed25519Material(o, key, ed25519Public);
    else if (!key) return undefined;
  } catch (err) {
    if (err instanceof TransitError && !err.message.startsWith(WHAT)) {
      throw invalidRequest(`${WHAT}: ${err.message}`);
    }
    throw err;
  }
  const chain = chainField(o);
  return {
    // ECDSA and RSA keep their material in the asymmetric fields only.
    key: asymmetric && type.family !== 'ed25519' ? new Uint8Array(0) : (key ?? new Uint8Array(0)),
    hmac_key: bytesField(o, 'hmac_key', WHAT) ?? new Uint8Array(0),
    time: stringField(o, 'time', WHAT) || ZERO_TIME,
    creation_time: intField(o, 'creation_time', WHAT),
    convergent_version: intField(o, 'convergent_version', WHAT),
    ...(asymmetric ? { asymmetric } : {}),
    ...(chain ? { certificate_chain: chain } : {}),
  };
}
