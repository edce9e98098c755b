/**
 * Shared helpers of the engine tests in `test/transit/`: engine construction
 * on a fake clock, error assertions, base64 helpers and a storage snapshot.
 * Not a test file (vitest only collects `*.test.ts`).
 */

import type { CryptoBackend, ErrorCode, KeyInfo, KeyType, TransitOptions } from 'transitkit';
import { MemoryStorage, Transit, TransitError } from 'transitkit';
import { expect } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { FakeClock } from '../helpers/fake-clock.js';

/** The four symmetric AEAD key types. */
export const SYMMETRIC_TYPES = [
  'aes128-gcm96',
  'aes256-gcm96',
  'chacha20-poly1305',
  'xchacha20-poly1305',
] as const satisfies readonly KeyType[];
export type SymmetricType = (typeof SYMMETRIC_TYPES)[number];

/** Nonce length in the payload, per type (reference §1). */
export const NONCE_BYTES: Readonly<Record<SymmetricType, number>> = {
  'aes128-gcm96': 12,
  'aes256-gcm96': 12,
  'chacha20-poly1305': 12,
  'xchacha20-poly1305': 24,
};

/** Go's AEAD authentication failure texts (reference §1). */
export const AUTH_FAILED: Readonly<Record<SymmetricType, string>> = {
  'aes128-gcm96': 'cipher: message authentication failed',
  'aes256-gcm96': 'cipher: message authentication failed',
  'chacha20-poly1305': 'chacha20poly1305: message authentication failed',
  'xchacha20-poly1305': 'chacha20poly1305: message authentication failed',
};

/** The eight HMAC/hash algorithms and their output sizes in bytes. */
export const HASH_SIZES: Readonly<Record<string, number>> = {
  'sha2-224': 28,
  'sha2-256': 32,
  'sha2-384': 48,
  'sha2-512': 64,
  'sha3-224': 28,
  'sha3-256': 32,
  'sha3-384': 48,
  'sha3-512': 64,
};

export const MISSING_CONTEXT_PREFIX = "missing 'context' for key derivation";

export interface TestEngine {
  transit: Transit;
  storage: MemoryStorage;
  clock: FakeClock;
}

/** A Transit on a fresh (or given) MemoryStorage and a fake clock, auto-rotation off. */
export function makeEngine(
  opts: {
    backend?: CryptoBackend;
    storage?: MemoryStorage;
    clock?: FakeClock;
    extra?: Omit<TransitOptions, 'storage' | 'clock' | 'crypto' | 'autoRotate'>;
  } = {},
): TestEngine {
  const clock = opts.clock ?? new FakeClock();
  const storage = opts.storage ?? new MemoryStorage({ clock });
  const backend = opts.backend ?? (BACKENDS[0] as readonly [string, CryptoBackend])[1];
  const transit = new Transit({
    ...opts.extra,
    storage,
    clock,
    crypto: backend,
    autoRotate: false,
  });
  return { transit, storage, clock };
}

/** Settle a promise (or a thunk that may throw synchronously) into its rejection reason. */
export async function reasonOf(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e;
  }
  return undefined;
}

/**
 * Expect a rejection with a TransitError of `code`; `message` is compared
 * exactly (string) or matched (RegExp). Returns the error.
 */
export async function expectError(
  p: Promise<unknown> | (() => unknown),
  code: ErrorCode,
  message?: string | RegExp,
): Promise<TransitError> {
  const e = await reasonOf(p);
  if (e === undefined) throw new Error(`expected a TransitError(${code}), but the call succeeded`);
  if (!(e instanceof TransitError)) {
    throw new Error(`expected a TransitError(${code}), got ${String(e)}`, { cause: e });
  }
  expect(e.code, e.message).toBe(code);
  if (typeof message === 'string') expect(e.message).toBe(message);
  else if (message) expect(e.message).toMatch(message);
  return e;
}

/** UTF-8 text → standard base64. */
export const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
/** Bytes → standard base64. */
export const bytesB64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
/** Standard base64 → bytes. */
export const unb64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));
/** Standard base64 → UTF-8 text. */
export const unb64Text = (s: string): string => Buffer.from(s, 'base64').toString('utf8');

/** Split `<prefix>:v<N>:<b64>` into its parts. */
export function splitVersioned(value: string): {
  prefix: string;
  version: number;
  payload: Uint8Array;
} {
  const m = /^([^:]+):v([0-9]+):(.*)$/s.exec(value);
  if (!m) throw new Error(`not a versioned value: ${value}`);
  return { prefix: m[1] as string, version: Number(m[2]), payload: unb64(m[3] as string) };
}

/** Rebuild a versioned value from parts. */
export const joinVersioned = (
  prefix: string,
  version: number | string,
  payload: Uint8Array,
): string => `${prefix}:v${version}:${bytesB64(payload)}`;

/** Every storage entry, as `key → hex`, for before/after comparisons. */
export async function snapshot(storage: MemoryStorage): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const k of await storage.list('')) {
    const v = await storage.get(k);
    out[k] = v === undefined ? '<gone>' : Buffer.from(v).toString('hex');
  }
  return out;
}

/** Let pending microtasks and one macrotask run (watch notifications). */
export const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

/** Vault's text for an encrypt/decrypt/rewrap on a missing key. */
export const NOT_FOUND = 'encryption key not found';
/** Vault's text for a caller nonce on a key that takes none. */
export const NONCE_NOT_ALLOWED = 'provided nonce not allowed for this key';
/** A 12-byte caller nonce (base64). */
export const TWELVE = bytesB64(new Uint8Array(12).fill(7));

/** A key with `n` versions and one ciphertext per version (index 0 = v1). */
export async function versions(transit: Transit, n: number, name = 'k'): Promise<string[]> {
  await transit.createKey(name);
  for (let v = 2; v <= n; v++) await transit.rotateKey(name);
  const out: string[] = [];
  for (let v = 1; v <= n; v++) {
    out.push((await transit.encrypt(name, { plaintext: b64(`p${v}`), key_version: v })).ciphertext);
  }
  return out;
}

/**
 * The read body's `keys` of `name` as a fresh instance on the same storage
 * reads it (nothing kept): what a kept listing must equal. `context` for a
 * derived key pair's per-context public keys.
 */
export async function listingFromScratch(
  e: TestEngine,
  name: string,
  context?: string,
): Promise<KeyInfo['keys']> {
  const fresh = makeEngine({ storage: e.storage, clock: e.clock });
  try {
    return (await fresh.transit.readKey(name, context === undefined ? {} : { context })).keys;
  } finally {
    await fresh.transit.close();
  }
}

/** Rotate `name` `n` times, `stepMs` apart on the fake clock; the last reply. */
export async function rotateTimes(
  e: TestEngine,
  name: string,
  n: number,
  stepMs: number,
): Promise<KeyInfo> {
  let last: KeyInfo | undefined;
  for (let i = 0; i < n; i++) {
    e.clock.advance(stepMs);
    last = await e.transit.rotateKey(name);
  }
  return last as KeyInfo;
}
