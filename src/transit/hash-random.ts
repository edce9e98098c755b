/**
 * Stateless operations: hashing and random bytes.
 *
 * Routes: `POST /transit/hash(/:algorithm)`, `POST /transit/random(/:source)(/:bytes)`.
 * @module
 */
import { isVaultHashName, vaultHash } from '../crypto/hash.js';
import { digestText } from '../crypto/text.js';
import { encodeBase64, encodeHex } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { optInt, optString } from '../request.js';
import { withWarnings } from '../result-meta.js';
import { schemaFor } from '../schema.js';
import type { Engine } from './engine.js';
import * as F from './fields.js';
import { inputBytes } from './hmac.js';
import type { HashRequest, RandomRequest } from './types.js';

/** Fields of `POST /transit/hash(/:algorithm)`. @public */
export const HASH_FIELDS = schemaFor<HashRequest>()({
  input: F.INPUT,
  algorithm: { ...F.HASH_ALGORITHM, description: 'sha2-256 (default), sha2-224/384/512, sha3-*.' },
  format: F.HEX_OR_BASE64,
});

/** Fields of `POST /transit/random(/:source)(/:bytes)`. @public */
export const RANDOM_FIELDS = schemaFor<RandomRequest>()({
  bytes: { type: 'int', description: 'Number of bytes; default 32.' },
  format: { ...F.HEX_OR_BASE64, description: 'Output encoding: base64 (default) or hex.' },
  source: { type: 'string', description: 'platform (default), seal or all.' },
});

/** Largest `random` request, as Vault (128 KiB). @internal */
export const MAX_RANDOM_BYTES = 128 * 1024;

function format(value: unknown, dflt: 'hex' | 'base64'): 'hex' | 'base64' {
  const v = optString(value, 'format');
  if (v === undefined) return dflt;
  if (v === 'hex' || v === 'base64') return v;
  throw invalidRequest(`unsupported encoding format ${String(value)}; must be "hex" or "base64"`);
}

/** @internal */
export function hash(e: Engine, req: HashRequest): { sum: string } {
  const r = HASH_FIELDS.request(req);
  const input = inputBytes(r.input, 'missing input to hash');
  const fmt = format(r.format, 'hex');
  const alg = optString(r.algorithm, 'algorithm') ?? 'sha2-256';
  // Vault's text (path_hash.go); sha1 is a digest it does not offer here.
  if (alg === 'sha1' || !isVaultHashName(alg)) throw invalidRequest(`unsupported algorithm ${alg}`);
  const h = vaultHash(alg);
  return { sum: digestText(e.backend, h.name, [input], fmt) };
}

/** @internal */
export function randomBytes(e: Engine, req: RandomRequest): { random_bytes: string } {
  const r = RANDOM_FIELDS.request(req);
  const n = optInt(r.bytes, 'bytes') ?? 32;
  // Vault's texts (helper/random/random_api.go).
  if (n < 1) throw invalidRequest('"bytes" cannot be less than 1');
  if (n > MAX_RANDOM_BYTES) throw invalidRequest(`"bytes" should be less than ${MAX_RANDOM_BYTES}`);
  const fmt = format(r.format, 'base64');
  const source = optString(r.source, 'source') || 'platform';
  if (!isRandomSource(source)) {
    throw invalidRequest(
      `unsupported entropy source ${JSON.stringify(source)}; must be "platform" or "seal", or "all"`,
    );
  }
  // `all` mixes every available source and `seal` reads the seal's: the
  // platform CSPRNG is the only one here, so `seal` warns as Vault's does
  // when its seal offers no entropy augmentation (Shamir).
  const bytes = e.backend.randomBytes(n);
  const result = { random_bytes: fmt === 'hex' ? encodeHex(bytes) : encodeBase64(bytes) };
  return source === 'seal' ? withWarnings(result, [NO_SEAL_ENTROPY]) : result;
}

/** Vault's warning for `source=seal` without seal entropy augmentation. @internal */
export const NO_SEAL_ENTROPY =
  'no seal/entropy augmentation available, using platform entropy source';

/** A `source` Vault's random API takes (`isValidSource`: empty is the default). @internal */
export const isRandomSource = (s: string): boolean =>
  s === '' || s === 'platform' || s === 'seal' || s === 'all';
