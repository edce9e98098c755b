/**
 * The stored forms of RSA material (reference §0.1, §6):
 * - our JSON: `rsa_key` `{n, e, d, p, q, dp, dq, qi}` as decimal strings, or
 *   only `rsa_public_key` `{n, e}` for a public-only version;
 * - the backup `KeyEntry`: `rsa_key` as Go's `rsa.PrivateKey` struct (`N`,
 *   `E`, `D`, `Primes`, `Precomputed{Dp, Dq, Qinv, CRTValues}`) and
 *   `rsa_public_key` `{N, E}` (written always, as current Vault does; 1.14
 *   reads it). Reading checks the modulus size of the row first (the
 *   consistency checks cost time proportional to it), then the key's
 *   consistency, recomputing Dp/Dq/Qinv when absent.
 * Part of the RSA family (`./rsa.ts`).
 * @module
 */
import type { RsaPrivateKey, RsaPublicKey } from '../../crypto/asymmetric-backend.js';
import { bitLength } from '../../crypto/asymmetric-checks.js';
import { checkRsaPrivateKey, completeRsaPrivateKey } from '../../crypto/pki/rsa.js';
import { invalidRequest } from '../../errors.js';
import { type EntryFields, INVALID_BACKUP as WHAT } from '../families/family.js';
import { bigField, GoObject, GoStruct, objectField } from '../go-json.js';
import { type AsymmetricJson, big, corrupt, type RsaMaterial } from './material.js';

const RSA_FIELDS = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;

/** Our stored JSON of RSA material. @internal */
export function rsaToJson(m: RsaMaterial): AsymmetricJson {
  const k = m.private;
  if (!k) return { rsa_public_key: { n: m.public.n.toString(), e: m.public.e.toString() } };
  const rsa = {} as Record<(typeof RSA_FIELDS)[number], string>;
  for (const f of RSA_FIELDS) rsa[f] = k[f].toString();
  return { rsa_key: rsa };
}

/**
 * Parse our stored JSON of RSA material.
 * @throws TransitError `internal` for a corrupted entry.
 * @internal
 */
export function rsaFromJson(o: Record<string, unknown>): RsaMaterial {
  const full = o.rsa_key;
  if (typeof full === 'object' && full !== null) {
    const f = full as Record<string, unknown>;
    const k = {} as Record<(typeof RSA_FIELDS)[number], bigint>;
    for (const name of RSA_FIELDS) k[name] = big(f[name], `rsa_key.${name}`);
    const key: RsaPrivateKey = k;
    return { kind: 'rsa', public: key, private: key };
  }
  const pub = o.rsa_public_key;
  if (typeof pub !== 'object' || pub === null) corrupt('rsa key');
  const p = pub as Record<string, unknown>;
  return {
    kind: 'rsa',
    public: { n: big(p.n, 'rsa_public_key.n'), e: big(p.e, 'rsa_public_key.e') },
  };
}

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

/** The backup `KeyEntry` fields of RSA material. @internal */
export const rsaEntryFields = (m: RsaMaterial): EntryFields => ({
  rsa_key: m.private ? rsaPrivateStruct(m.private) : null,
  rsa_public_key: rsaPublicStruct(m.public),
});

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

/**
 * A backup entry's RSA material for a `bits`-bit row, checked.
 * @throws TransitError `invalid_request` for malformed or inconsistent material.
 * @internal
 */
export function rsaFromEntry(o: GoObject, bits: number): RsaMaterial {
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
