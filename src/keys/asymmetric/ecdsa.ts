/**
 * The ECDSA family (`ecdsa-p256`, `ecdsa-p384`, `ecdsa-p521`), as Vault's
 * keysutil does it (reference §5, §8, §15):
 * - generation: a random key; the stored `public_key` is the PKIX PEM with a
 *   trailing newline (Go `pem.EncodeToMemory`), which the read body shows;
 * - signatures: randomized, high-S not normalised; the input is hashed with
 *   `hash_algorithm` unless prehashed (a digest of any length is truncated to
 *   the order); `asn1` = DER, `jws` = r ‖ s at ⌈bits/8⌉ bytes each;
 * - verification of `asn1` answers Vault's two user errors for a value that
 *   does not parse or carries trailing bytes; `jws` must be exactly 2 × width
 *   (JWS, RFC 7518 §3.4);
 * - export: SEC 1 `EC PRIVATE KEY` PEM and PKIX `PUBLIC KEY` PEM, both
 *   trimmed; `der`/`pem` give PKCS#8 / PKIX; no `raw` form;
 * - stored (our JSON, decimal strings; the backup `KeyEntry`, bare numbers):
 *   `ec_x`, `ec_y`, `ec_d` (absent/null when public-only) and `public_key`,
 *   the PKIX PEM. A restored point must be on the curve, `d·G` must be it,
 *   and a non-empty `public_key` must match;
 * - import: the curve must be the row's (Vault's text).
 * @module
 */
import type { EcCurve, EcPublicKey } from '../../crypto/asymmetric-backend.js';
import { CURVE_BYTES, ecPointBytes } from '../../crypto/asymmetric-checks.js';
import { decodeEcPoint, ecPublicFromScalar } from '../../crypto/pki/ec.js';
import { checkEcdsaDerShape } from '../../crypto/pki/ecdsa-signature.js';
import {
  decodePublicKeyPem,
  encodePkcs8PrivateKey,
  encodeSec1PrivateKey,
  encodeSpki,
  pemEncode,
} from '../../crypto/pki/keys.js';
import { encodeBase64 } from '../../encoding.js';
import { internal, invalidRequest } from '../../errors.js';
import { INVALID_BACKUP as WHAT } from '../families/family.js';
import { bigField, type GoObject, stringField } from '../go-json.js';
import type { KeyTypeInfo } from '../key-types.js';
import { keyOf, materialOf, refuseRaw, signedData, trimPem } from './common.js';
import { defineAsymmetricFamily } from './define.js';
import { type AsymmetricMaterial, big, corrupt, type EcMaterial } from './material.js';

const ec = (m: AsymmetricMaterial): EcMaterial => materialOf(m, 'ec');
const empty = new Uint8Array(0);
const CURVE_NAME = { p256: 'P-256', p384: 'P-384', p521: 'P-521' } as const;

const spkiOf = (m: EcMaterial): Uint8Array =>
  encodeSpki({ type: 'ec', key: { curve: m.public.curve, x: m.public.x, y: m.public.y } });

const pemOf = (k: EcPublicKey): string =>
  pemEncode(encodeSpki({ type: 'ec', key: { curve: k.curve, x: k.x, y: k.y } }), 'PUBLIC KEY');

/** The row's curve. */
function curveOf(info: KeyTypeInfo): EcCurve {
  if (!info.curve) throw internal(`key type ${info.name} has no curve`);
  return info.curve;
}

/** Refuse an imported key on another curve than the row's. */
function checkCurve(info: KeyTypeInfo, got: EcCurve): void {
  const want = curveOf(info);
  if (got !== want) {
    throw invalidRequest(`invalid curve: expected ${CURVE_NAME[want]}, got ${CURVE_NAME[got]}`);
  }
}

/** A backup entry's EC material, checked (point on the curve, `d·G`, `public_key`). */
function entryMaterial(o: GoObject, curve: EcCurve): EcMaterial {
  const x = bigField(o, 'ec_x', WHAT);
  const y = bigField(o, 'ec_y', WHAT);
  if (x === undefined || y === undefined) throw invalidRequest(`${WHAT}: missing 'ec_x'/'ec_y'`);
  let pub: EcPublicKey;
  try {
    pub = decodeEcPoint(curve, ecPointBytes({ curve, x, y }), 'ec_x/ec_y');
  } catch {
    throw invalidRequest(`${WHAT}: 'ec_x'/'ec_y' is not a point of ${curve.toUpperCase()}`);
  }
  const publicKeyPem = pemOf(pub);
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

/** @internal */
export const ecdsaFamily = defineAsymmetricFamily({
  name: 'ecdsa',
  materialKind: 'ec',
  pkixType: 'ec',

  async generate(b, info) {
    const key = await b.generateEc(curveOf(info));
    const publicKeyPem = pemOf(key);
    return {
      key: new Uint8Array(0),
      material: { kind: 'ec', public: key, private: key, publicKeyPem },
    };
  },

  readPublicKey: (m) => ec(m).publicKeyPem,

  // Not `async`: the backend's promise is handed on as it is (an async function
  // would settle a second promise with it: two more ticks and a `then` lookup).
  sign(b, m, input, o) {
    const key = ec(m).private;
    if (!key) throw invalidRequest('requested version for signing does not contain a private part');
    const format = o.marshaling === 'jws' ? 'p1363' : 'der';
    return b.ecdsaSign(key, o.hash, signedData(input, o.prehashed), format);
  },

  async verify(b, m, input, signature, o) {
    const key = ec(m).public;
    if (o.marshaling === 'jws') {
      const fixed = jwsToP1363(signature, CURVE_BYTES[key.curve]);
      // A signature that cannot hold r and s of this curve is not valid (Vault: false, not an error).
      if (!fixed) return false;
      return b.ecdsaVerify(key, o.hash, signedData(input, o.prehashed), fixed, 'p1363');
    }
    const shape = checkEcdsaDerShape(signature);
    if (shape === 'invalid') throw invalidRequest('supplied signature is invalid');
    if (shape === 'extra-data') throw invalidRequest('supplied signature contains extra data');
    return b.ecdsaVerify(key, o.hash, signedData(input, o.prehashed), signature, 'der');
  },

  exportPrivate(m, _key, format) {
    refuseRaw(format, 'ec');
    const key = ec(m).private;
    if (!key) return '';
    if (format === '') return trimPem(pemEncode(encodeSec1PrivateKey(key), 'EC PRIVATE KEY'));
    const der = encodePkcs8PrivateKey({ type: 'ec', key });
    return format === 'der' ? encodeBase64(der) : trimPem(pemEncode(der, 'PRIVATE KEY'));
  },

  exportPublic(m, format) {
    refuseRaw(format, 'ec');
    const der = spkiOf(ec(m));
    return format === 'der' ? encodeBase64(der) : trimPem(pemEncode(der, 'PUBLIC KEY'));
  },

  privateKey(m) {
    const key = ec(m).private;
    return key ? { type: 'ec', key } : undefined;
  },

  publicKey(m) {
    const { curve, x, y } = ec(m).public;
    return { type: 'ec', key: { curve, x, y } };
  },

  materialToJson(m) {
    const { public: pub, private: priv, publicKeyPem } = ec(m);
    const out = { ec_x: pub.x.toString(), ec_y: pub.y.toString(), public_key: publicKeyPem };
    return priv ? { ...out, ec_d: priv.d.toString() } : out;
  },

  materialFromJson(o, info) {
    const curve = info.curve;
    if (!curve || typeof o.public_key !== 'string') corrupt('ec public key');
    const pub: EcPublicKey = { curve, x: big(o.ec_x, 'ec_x'), y: big(o.ec_y, 'ec_y') };
    if (o.ec_d === undefined || o.ec_d === null) {
      return { kind: 'ec', public: pub, publicKeyPem: o.public_key };
    }
    const priv = { ...pub, d: big(o.ec_d, 'ec_d') };
    return { kind: 'ec', public: priv, private: priv, publicKeyPem: o.public_key };
  },

  entryFields(m) {
    if (!m) return {};
    const { public: pub, private: priv, publicKeyPem } = ec(m);
    return { ec_x: pub.x, ec_y: pub.y, ec_d: priv?.d ?? null, public_key: publicKeyPem };
  },

  decodeEntry: async (o, info) => ({ key: empty, asymmetric: entryMaterial(o, curveOf(info)) }),

  async fromPrivateKey(_b, info, m) {
    const key = keyOf(m, 'ec');
    checkCurve(info, key.curve);
    return {
      key: empty,
      asymmetric: { kind: 'ec', public: key, private: key, publicKeyPem: pemOf(key) },
    };
  },

  fromPublicKey(info, m) {
    const key = keyOf(m, 'ec');
    checkCurve(info, key.curve);
    return { key: empty, asymmetric: { kind: 'ec', public: key, publicKeyPem: pemOf(key) } };
  },
});

/**
 * A JWS signature as Vault reads it: split in half, each half a big-endian
 * integer (r, then s), whatever the length; here as r ‖ s of `width` bytes
 * each. `undefined` when a half holds a number wider than the curve (no valid
 * signature has one).
 */
function jwsToP1363(signature: Uint8Array, width: number): Uint8Array | undefined {
  if (signature.length === 2 * width) return signature;
  const half = signature.length >> 1;
  const out = new Uint8Array(2 * width);
  const parts = [signature.subarray(0, half), signature.subarray(half)];
  for (const [i, part] of parts.entries()) {
    let start = 0;
    while (start < part.length && part[start] === 0) start++;
    const digits = part.subarray(start);
    if (digits.length > width) return undefined;
    out.set(digits, (i + 1) * width - digits.length);
  }
  return out;
}
