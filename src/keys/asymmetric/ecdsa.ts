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
 *   trimmed; `der`/`pem` give PKCS#8 / PKIX; no `raw` form.
 * @module
 */
import { CURVE_BYTES } from '../../crypto/asymmetric-checks.js';
import { checkEcdsaDerShape } from '../../crypto/pki/ecdsa-signature.js';
import {
  encodePkcs8PrivateKey,
  encodeSec1PrivateKey,
  encodeSpki,
  pemEncode,
} from '../../crypto/pki/keys.js';
import { encodeBase64 } from '../../encoding.js';
import { internal, invalidRequest } from '../../errors.js';
import { materialOf, refuseRaw, signedData, trimPem } from './common.js';
import type { AsymmetricFamily } from './family.js';
import type { EcMaterial } from './material.js';

const ec = (m: Parameters<AsymmetricFamily['readPublicKey']>[0]): EcMaterial => materialOf(m, 'ec');

const spkiOf = (m: EcMaterial): Uint8Array =>
  encodeSpki({ type: 'ec', key: { curve: m.public.curve, x: m.public.x, y: m.public.y } });

/** @internal */
export const ecdsaFamily: AsymmetricFamily = {
  async generate(b, info) {
    if (!info.curve) throw internal(`key type ${info.name} has no curve`);
    const key = await b.generateEc(info.curve);
    const publicKeyPem = pemEncode(
      encodeSpki({ type: 'ec', key: { curve: key.curve, x: key.x, y: key.y } }),
      'PUBLIC KEY',
    );
    return {
      key: new Uint8Array(0),
      material: { kind: 'ec', public: key, private: key, publicKeyPem },
    };
  },

  readPublicKey: (m) => ec(m).publicKeyPem,

  async sign(b, m, input, o) {
    const key = ec(m).private;
    if (!key) throw invalidRequest('requested version for signing does not contain a private part');
    const format = o.marshaling === 'jws' ? 'p1363' : 'der';
    return b.ecdsaSign(key, o.hash, signedData(input, o.prehashed), format);
  },

  async verify(b, m, input, signature, o) {
    const key = ec(m).public;
    if (o.marshaling === 'jws') {
      const width = 2 * CURVE_BYTES[key.curve];
      if (signature.length !== width) {
        throw invalidRequest(
          `invalid JWS signature: expected ${width} bytes (r ‖ s), got ${signature.length}`,
        );
      }
      return b.ecdsaVerify(key, o.hash, signedData(input, o.prehashed), signature, 'p1363');
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
};
