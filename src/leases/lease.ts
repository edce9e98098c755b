/**
 * The lease model: the stored record, its codec, lease ids and paths, and the
 * small formatting rules of Vault's `/sys/leases` (reference §11).
 *
 * A lease is one JSON entry under `sys/leases/entry/<id>`; it is the only
 * truth. `due` is the time of its next scheduled action (expiry, or the next
 * revocation attempt) and names its key in the due index; a revocation in
 * progress is marked by `claim` (until when) so that no other instance starts
 * the same revocation. "Revoked" is the absence of the entry, as in Vault.
 * @module
 */
import { internal, invalidRequest } from '../errors.js';

/** The stored form of a lease (times in ms since the epoch, TTLs in seconds). @internal */
export interface LeaseRecord {
  v: 1;
  id: string;
  path: string;
  issue_time: number;
  expire_time: number;
  /** 0 until the first renewal. */
  last_renewal: number;
  /** The TTL the lease was issued with: what `renew` with increment 0 grants. */
  ttl: number;
  /** 0: the system maximum. */
  max_ttl: number;
  renewable: boolean;
  auth: boolean;
  token?: string;
  /** The token's key in the token index (`sys/leases/token/<key>/<id>`); absent without a token. */
  token_key?: string;
  data?: unknown;
  /** Time of the next scheduled action (the due-index key); 0 when none (irrevocable). */
  due: number;
  /** Revocation attempts made. */
  attempts: number;
  /** A revocation is running until this time (0: none). */
  claim: number;
  last_error?: string;
  irrevocable: boolean;
}

/** A lease entry as read: the exact stored bytes (for compare-and-set) and the record. @internal */
export interface Snapshot {
  bytes: Uint8Array;
  rec: LeaseRecord;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** @internal */
export function encodeRecord(rec: LeaseRecord): Uint8Array {
  return encoder.encode(JSON.stringify(rec));
}

/**
 * @throws TransitError `internal` for an entry that is not a lease record.
 * @internal
 */
export function decodeRecord(bytes: Uint8Array, id: string): LeaseRecord {
  let rec: unknown;
  try {
    rec = JSON.parse(decoder.decode(bytes));
  } catch (e) {
    throw internal(`corrupt lease entry "${id}"`, e);
  }
  const r = rec as Partial<LeaseRecord> | null;
  if (typeof r !== 'object' || r === null || r.v !== 1 || r.id !== id) {
    throw internal(`corrupt lease entry "${id}"`);
  }
  return r as LeaseRecord;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Length of the random part of a lease id (Vault's `TokenLength`). @internal */
export const LEASE_ID_RANDOM_LENGTH = 24;

/** `n` base62 characters from the CSPRNG, without modulo bias (bytes ≥ 248 are dropped). @internal */
export function randomBase62(random: (n: number) => Uint8Array, n: number): string {
  let out = '';
  while (out.length < n) {
    const bytes = random(n + 8);
    for (let i = 0; i < bytes.length && out.length < n; i++) {
      const b = bytes[i] as number;
      if (b < 248) out += BASE62[b % 62];
    }
  }
  return out;
}

/** CSPRNG bytes fetched at once for small requests (one call per ~128 lease ids). */
const POOL_SIZE = 4096;
let pool = new Uint8Array(0);
let poolPos = 0;

/**
 * The platform CSPRNG (`crypto.getRandomValues`, in Node ≥ 19, browsers and
 * edge runtimes). Small requests are served from a pool filled 4 KiB at a time
 * (a call per lease id cost more than the rest of issuing it); bytes handed out
 * are zeroed in the pool, so none is ever returned twice.
 * @internal
 */
export function platformRandom(n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (n > POOL_SIZE / 8) {
    for (let i = 0; i < n; i += 65_536)
      globalThis.crypto.getRandomValues(out.subarray(i, i + 65_536));
    return out;
  }
  if (poolPos + n > pool.length) {
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_SIZE));
    poolPos = 0;
  }
  out.set(pool.subarray(poolPos, poolPos + n));
  pool.fill(0, poolPos, poolPos + n);
  poolPos += n;
  return out;
}

/** Characters allowed in a path segment. */
const SEGMENT = /^[A-Za-z0-9_.@:+=,~-]+$/;
const MAX_PATH_LENGTH = 512;

/**
 * Check a lease path: non-empty segments of `A-Z a-z 0-9 _ . @ : + = , ~ -`
 * separated by `/`, no `.` or `..` segment, no leading or trailing `/`, at most
 * 512 characters.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkPath(path: unknown): string {
  if (path === undefined || path === null || path === '') {
    throw invalidRequest('path must be specified');
  }
  if (typeof path !== 'string') throw invalidRequest("'path' must be a string");
  if (path.length > MAX_PATH_LENGTH) {
    throw invalidRequest(`lease path is longer than ${MAX_PATH_LENGTH} characters`);
  }
  for (const seg of path.split('/')) {
    if (seg === '') throw invalidRequest(`invalid lease path "${path}": empty segment`);
    if (seg === '.' || seg === '..') {
      throw invalidRequest(`invalid lease path "${path}": "${seg}" segment`);
    }
    if (!SEGMENT.test(seg)) {
      throw invalidRequest(`invalid lease path "${path}": unsupported character`);
    }
  }
  return path;
}

/**
 * Check a listing/revocation prefix: `''` or a path, optionally ending with `/`.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkPrefix(prefix: unknown, field = 'prefix'): string {
  if (prefix === undefined || prefix === null) return '';
  if (typeof prefix !== 'string') throw invalidRequest(`'${field}' must be a string`);
  if (prefix === '') return '';
  checkPath(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  return prefix;
}

/** Printable ASCII only: anything else cannot be a lease id (and must not reach storage). */
const LEASE_ID = /^[\x21-\x7e]{1,1024}$/;

/**
 * The `lease_id` argument: `undefined` when absent, otherwise a string.
 * @throws TransitError `invalid_request` `lease_id must be specified` when missing.
 * @internal
 */
export function requireLeaseId(id: unknown): string {
  if (id === undefined || id === null || id === '') {
    throw invalidRequest('lease_id must be specified');
  }
  if (typeof id !== 'string') throw invalidRequest("'lease_id' must be a string");
  return id;
}

/** True when `id` could name a stored lease (else it is simply unknown). @internal */
export const plausibleLeaseId = (id: string): boolean => LEASE_ID.test(id);

/** The mount of a lease: its first path segment with the `/`. @internal */
export function mountOf(id: string): string {
  const i = id.indexOf('/');
  return i < 0 ? id : id.slice(0, i + 1);
}

/** RFC 3339 with a fraction (`2026-01-01T00:00:00.000Z`). @internal */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/**
 * Vault's `humanDuration` (sdk/framework/lease.go) of whole seconds: Go's
 * `time.Duration.String()` without its zero minutes and seconds (`1h`,
 * `1h30m`, `2h30s`, `1m30s`, `45s`).
 * @internal
 */
export function humanDuration(seconds: number): string {
  const a = Math.max(0, Math.trunc(seconds));
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  const s = a % 60;
  let text = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
  if (text.endsWith('m0s')) text = text.slice(0, -2);
  const i = text.indexOf('h0m');
  if (i > 0) text = text.slice(0, i + 1) + text.slice(i + 3);
  return text;
}

/**
 * Vault's warning when a TTL is capped (`framework.CalculateTTL`, for leases
 * and tokens alike), in seconds.
 * @internal
 */
export const cappedWarning = (ttl: number, max: number): string =>
  `TTL of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(max)}"; TTL value is capped accordingly`;

/** An irrevocable lease's error text: at most 240 characters (Vault). @internal */
export const errorText = (text: string): string => (text.length > 240 ? text.slice(0, 240) : text);

/** Yield to the event loop (a macrotask), so timers and I/O run between slices. @internal */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}
