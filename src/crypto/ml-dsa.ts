/**
 * ML-DSA (FIPS 204) signatures through `@noble/post-quantum`, on every
 * runtime: Node 20 has no ML-DSA in node:crypto and WebCrypto has none, so
 * the node and noble backends share this one implementation (same bytes
 * everywhere by construction).
 *
 * Keys are plain bytes, as for the other families:
 * - the private key is the 32-byte seed ξ (FIPS 204 §4, Algorithm 6); the
 *   expanded secret key (2560/4032/4896 bytes) is derived from it once and
 *   cached on the key object;
 * - the public key is the encoded `pk` (1312/1952/2592 bytes).
 *
 * Signing is pure ML-DSA (Algorithm 2) with the FIPS 204 context string
 * (≤ 255 bytes), hedged (fresh 32-byte `rnd`) unless `deterministic`, or
 * over a caller's 64-byte μ (`externalMu`, Algorithm 7 with μ given, as AWS
 * KMS's `EXTERNAL_MU`). Key generation from a seed takes ~2 ms (ML-DSA-87),
 * well under the 20 ms event-loop budget, so it runs in line.
 *
 * Errors follow `./asymmetric-backend.ts`: wrong sizes are `RangeError`s
 * (mapped to `invalid_request` by the engine), a signature that does not
 * verify gives `false`.
 *
 * @module
 */
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { constantTimeEqual } from '../util/constant-time.js';

/** An ML-DSA parameter set (FIPS 204 Table 1). @public */
export type MlDsaLevel = 44 | 65 | 87;

/** An ML-DSA public key: the parameter set and the encoded `pk`. @public */
export interface MlDsaPublicKey {
  readonly level: MlDsaLevel;
  readonly key: Uint8Array;
}

/** An ML-DSA private key: the parameter set and the 32-byte seed ξ. @public */
export interface MlDsaPrivateKey {
  readonly level: MlDsaLevel;
  readonly seed: Uint8Array;
}

/** The signing options of one ML-DSA signature. @internal */
export interface MlDsaSignOptions {
  /** FIPS 204 context string (≤ 255 bytes; empty by default). Not with `externalMu`. */
  readonly context?: Uint8Array;
  /** `rnd` = 32 zero bytes (FIPS 204's deterministic variant) instead of fresh randomness. */
  readonly deterministic?: boolean;
  /** The input is μ (64 bytes), not the message. */
  readonly externalMu?: boolean;
  /** An explicit 32-byte `rnd` (known-answer tests). */
  readonly rnd?: Uint8Array;
}

const IMPL = { 44: ml_dsa44, 65: ml_dsa65, 87: ml_dsa87 } as const;

/** Byte sizes of a parameter set (FIPS 204 Table 2). @internal */
export const ML_DSA_SIZES: Readonly<
  Record<MlDsaLevel, { publicKey: number; secretKey: number; signature: number }>
> = {
  44: { publicKey: 1312, secretKey: 2560, signature: 2420 },
  65: { publicKey: 1952, secretKey: 4032, signature: 3309 },
  87: { publicKey: 2592, secretKey: 4896, signature: 4627 },
};

/** Seed size (ξ) of every parameter set. @internal */
export const ML_DSA_SEED_BYTES = 32;
/** Size of μ (external-μ signing). @internal */
export const ML_DSA_MU_BYTES = 64;
const MAX_CONTEXT = 255;

interface Expanded {
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

const expandedCache = new WeakMap<MlDsaPrivateKey, Expanded>();

/** The parameter set's noble implementation. */
const impl = (level: MlDsaLevel) => IMPL[level];

/**
 * The expanded key pair of a seed (cached per key object).
 * @throws RangeError for a seed that is not 32 bytes.
 * @internal
 */
export function mlDsaExpand(priv: MlDsaPrivateKey): Expanded {
  let e = expandedCache.get(priv);
  if (!e) {
    if (priv.seed.length !== ML_DSA_SEED_BYTES) {
      throw new RangeError('ML-DSA seed must be 32 bytes');
    }
    const k = impl(priv.level).keygen(priv.seed);
    e = { publicKey: k.publicKey, secretKey: k.secretKey };
    expandedCache.set(priv, e);
  }
  return e;
}

/** The public key of a seed. @internal */
export function mlDsaPublicKey(priv: MlDsaPrivateKey): MlDsaPublicKey {
  return { level: priv.level, key: mlDsaExpand(priv).publicKey };
}

/** A new private key from `random` (the backend CSPRNG). @internal */
export function mlDsaGenerate(
  level: MlDsaLevel,
  random: (n: number) => Uint8Array,
): MlDsaPrivateKey {
  return { level, seed: random(ML_DSA_SEED_BYTES) };
}

function checkContext(o: MlDsaSignOptions): Uint8Array | undefined {
  const ctx = o.context;
  if (ctx && ctx.length > MAX_CONTEXT) {
    throw new RangeError('ML-DSA context string must be at most 255 bytes');
  }
  if (o.externalMu && ctx && ctx.length > 0) {
    throw new RangeError('ML-DSA context string cannot be used with an external mu');
  }
  return ctx;
}

function checkMu(input: Uint8Array): void {
  if (input.length !== ML_DSA_MU_BYTES) {
    throw new RangeError('ML-DSA external mu must be 64 bytes');
  }
}

/**
 * Sign `input` (the message, or μ with `externalMu`).
 * @throws RangeError for a context over 255 bytes, a context with μ, μ not 64 bytes.
 * @internal
 */
export function mlDsaSign(
  priv: MlDsaPrivateKey,
  input: Uint8Array,
  o: MlDsaSignOptions = {},
): Uint8Array {
  const context = checkContext(o);
  const { secretKey } = mlDsaExpand(priv);
  const extraEntropy: Uint8Array | false | undefined =
    o.rnd ?? (o.deterministic ? false : undefined);
  const dsa = impl(priv.level);
  if (o.externalMu) {
    checkMu(input);
    return dsa.internal.sign(input, secretKey, { externalMu: true, extraEntropy });
  }
  return dsa.sign(input, secretKey, { context, extraEntropy });
}

/**
 * Verify a signature over `input` (the message, or μ with `externalMu`);
 * `false` for anything that does not verify (wrong length included).
 * @throws RangeError for a context over 255 bytes, a context with μ, μ not 64 bytes.
 * @internal
 */
export function mlDsaVerify(
  pub: MlDsaPublicKey,
  input: Uint8Array,
  signature: Uint8Array,
  o: Pick<MlDsaSignOptions, 'context' | 'externalMu'> = {},
): boolean {
  const context = checkContext(o);
  const dsa = impl(pub.level);
  if (signature.length !== ML_DSA_SIZES[pub.level].signature) return false;
  if (pub.key.length !== ML_DSA_SIZES[pub.level].publicKey) return false;
  if (o.externalMu) checkMu(input);
  try {
    return o.externalMu
      ? dsa.internal.verify(signature, input, pub.key, { externalMu: true })
      : dsa.verify(signature, input, pub.key, { context });
  } catch {
    return false;
  }
}

/**
 * Whether `expanded` is the expanded secret key of `priv` (the PKCS#8
 * `both` form's consistency check), in constant time over equal lengths.
 * @internal
 */
export function mlDsaExpandedMatches(priv: MlDsaPrivateKey, expanded: Uint8Array): boolean {
  return constantTimeEqual(mlDsaExpand(priv).secretKey, expanded);
}
