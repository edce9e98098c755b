/**
 * The engine context every endpoint module works on: storage, the key store,
 * the crypto backend, the clock, the value prefix and the global settings.
 * Modules receive it as their first argument; the `Transit` facade owns it.
 * @module
 */
import type { Clock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { invalidRequest } from '../errors.js';
import {
  CHANGE_RETRIES,
  isKeyChanged,
  type LoadedKey,
  type PolicyStore,
} from '../keys/policy-store.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { OpRecorder } from './metrics.js';

/** @internal */
export interface Engine {
  readonly storage: StorageAdapter;
  readonly store: PolicyStore;
  readonly backend: CryptoBackend;
  readonly clock: Clock;
  /** Ciphertext/signature prefix (default `vault`). */
  readonly prefix: string;
  /** Maximum items per batch. */
  readonly maxBatch: number;
  /** Maximum live versions per key (rotate, auto-rotate, restore refuse beyond it). */
  readonly maxVersions: number;
  /** Counts cryptographic operations and batch sizes (an empty function without metrics). */
  readonly ops: OpRecorder;
  /**
   * The cache size setting (persisted; loaded at start). `disable_upsert` is
   * not kept: it is read from storage where it decides (config.ts `upsertDisabled`).
   */
  readonly settings: { cache_size: number };
  /**
   * Set when the engine is closed (a node's seal): what holds a key beyond
   * one call (a stream, an `openEncrypted` object) checks it before each use.
   */
  readonly state: { closed: boolean };
}

/** Load a key or fail with Vault's message for the operation. @internal */
export function requireKey(
  e: Engine,
  name: string,
  missing: string,
): LoadedKey | Promise<LoadedKey> {
  // A cached key is answered without a promise; otherwise storage is read.
  const hit = e.store.cached(name);
  if (hit) return hit;
  return e.store.get(name).then((key) => {
    if (!key) throw invalidRequest(missing);
    return key;
  });
}

/**
 * `first`'s answer; when it fails because the key changed under one of its
 * archived reads (another instance trimmed, deleted or replaced it), `run()`
 * again, up to `CHANGE_RETRIES` times, so the caller gets what the key as it
 * now is gives ("too old", "not found", or the answer). Only for operations
 * that write nothing before their archived reads. @internal
 */
export function againIfChanged<T>(first: Promise<T>, run: () => T | Promise<T>): Promise<T> {
  // A reaction on `first` rather than an async function awaiting it: the
  // answer takes one tick after `first`'s, not three (a signature pays it on
  // every call).
  return first.then(undefined, (err: unknown) => retryIfChanged(err, run));
}

/** {@link againIfChanged} once the first answer failed with `err`: up to `CHANGE_RETRIES` runs. */
async function retryIfChanged<T>(err: unknown, run: () => T | Promise<T>): Promise<T> {
  for (let failed = err, retry = 1; ; retry++) {
    if (!isKeyChanged(failed) || retry > CHANGE_RETRIES) throw failed;
    try {
      return await run();
    } catch (next) {
      failed = next;
    }
  }
}
