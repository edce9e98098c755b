/**
 * The options of the {@link Transit} constructor and the engine context they
 * build: backend selection (`'noble'`, the platform default, or a custom
 * {@link CryptoBackend} — one object carries both the symmetric and the
 * asymmetric primitives), storage, clock, value prefix, cache and batch limits.
 * @module
 */
import { defaultBackend } from '#default-backend';
import { type Clock, systemClock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { nobleBackend } from '../crypto/noble/index.js';
import { invalidRequest } from '../errors.js';
import { DEFAULT_MAX_KEY_VERSIONS } from '../keys/policy.js';
import { PolicyStore } from '../keys/policy-store.js';
import { resolveMetrics } from '../metrics/noop.js';
import type { Metrics } from '../metrics/types.js';
import { Leadership } from '../node/leadership.js';
import { asRequest } from '../request.js';
import { requireStorageAdapter, type StorageAdapter } from '../storage/adapter.js';
import { MemoryStorage } from '../storage/memory.js';
import { MAX_TIMER_MS, optionKeys, positiveInt, refuseUnknownOptions } from '../util/options.js';
import type { AutoRotateResult } from './auto-rotate.js';
import { DEFAULT_MAX_BATCH } from './batch.js';
import type { Engine } from './engine.js';
import { keyCacheEvents, opRecorder } from './metrics.js';
import type { Transit } from './transit.js';

/**
 * Options of the {@link Transit} constructor.
 * @public
 */
export interface TransitOptions {
  /** Where keys live. Default: a new {@link MemoryStorage}. */
  storage?: StorageAdapter;
  /**
   * The crypto backend, by the name {@link Transit.backendName} reports:
   * `'node'` (`node:crypto`; only where the package resolves its Node build,
   * else `invalid_request`), `'noble'` (pure JS, any runtime), `'default'` or
   * omitted for the platform default (`node` on Node, `noble` elsewhere), or
   * a custom {@link CryptoBackend}.
   */
  crypto?: 'node' | 'noble' | 'default' | CryptoBackend;
  /** Time source (tests pass a fake clock). Default: the wall clock. */
  clock?: Clock;
  /** Ciphertext and signature prefix. Default `vault` (as Vault, for interchange). */
  prefix?: string;
  /** Parsed-key cache size until one is stored with `writeCacheConfig` (0 = unbounded). */
  cacheSize?: number;
  /** Maximum items in one `batch_input`. Default 10,000. */
  maxBatchSize?: number;
  /**
   * Maximum live versions per key (from `min_available_version` to the
   * latest). Rotation, auto-rotation and restore refuse to go beyond it;
   * trimming frees room. Default 100,000.
   */
  maxKeyVersions?: number;
  /**
   * Automatic rotation: `false` disables the timer (call {@link Transit.runAutoRotation}
   * yourself); otherwise a pass runs every `intervalMs` (default 60,000) and
   * `onResult`, when given, hears what each timer pass rotated (and what failed).
   * The timer does not keep a Node process alive.
   */
  autoRotate?: false | { intervalMs?: number; onResult?: (result: AutoRotateResult) => void };
  /**
   * The node's leadership, when several instances share the storage: the
   * auto-rotation timer then runs a pass only on the instance that holds the
   * leader lock (the one that also expires leases), so a due key is rotated
   * once, by the leader. Without it, every instance rotates on its own timer
   * (right for a single instance or storage without a lock).
   */
  leadership?: Leadership;
  /**
   * Where the engine records its metrics: cryptographic operations by
   * operation and key type, batch sizes, key cache hits, misses and
   * evictions (see `METRICS`). Default: none.
   */
  metrics?: Metrics;
}

/** The backend an option names. @internal */
export function resolveBackend(c: TransitOptions['crypto']): CryptoBackend {
  if (c === undefined || c === 'default') return defaultBackend;
  if (c === 'noble') return nobleBackend;
  if (c === 'node') {
    // The node backend is only reachable through `#default-backend`, so the core
    // never imports node:crypto itself (browser bundles resolve noble there).
    if (defaultBackend.name === 'node') return defaultBackend;
    throw invalidRequest(
      "crypto 'node' needs Node's build of transitkit (node:crypto); this runtime has 'noble'",
    );
  }
  if (typeof c === 'object' && c !== null && typeof c.aeadSeal === 'function') return c;
  throw invalidRequest("'crypto' must be 'node', 'noble', 'default' or a CryptoBackend");
}

const PREFIX = /^[A-Za-z0-9_-]{1,32}$/;

/** Every option of {@link TransitOptions}. @internal */
export const TRANSIT_OPTIONS = optionKeys<TransitOptions>({
  storage: true,
  crypto: true,
  clock: true,
  prefix: true,
  cacheSize: true,
  maxBatchSize: true,
  maxKeyVersions: true,
  autoRotate: true,
  leadership: true,
  metrics: true,
});

/**
 * Validate the options and build the engine context (no I/O).
 * @throws TransitError `invalid_request` for a bad option.
 * @internal
 */
export function engineFromOptions(options: TransitOptions): Engine {
  // A misspelt option would otherwise be a default in silence: `storge` a MemoryStorage.
  refuseUnknownOptions(options, TRANSIT_OPTIONS, 'Transit');
  // `storage: config.storage` that came out undefined must not mean "memory".
  if ('storage' in options) {
    requireStorageAdapter(options.storage, "'storage'", ' (omit it for memory storage)');
  }
  const backend = resolveBackend(options.crypto);
  const storage = options.storage ?? new MemoryStorage();
  const prefix = options.prefix ?? 'vault';
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    throw invalidRequest('prefix must be 1-32 letters, digits, _ or -');
  }
  const cacheSize = options.cacheSize ?? 0;
  if (!Number.isSafeInteger(cacheSize) || cacheSize < 0) {
    throw invalidRequest('cacheSize must be a non-negative integer');
  }
  const maxBatch = options.maxBatchSize ?? DEFAULT_MAX_BATCH;
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) {
    throw invalidRequest('maxBatchSize must be a positive integer');
  }
  if (options.leadership !== undefined && !(options.leadership instanceof Leadership)) {
    throw invalidRequest("'leadership' must be a Leadership");
  }
  const maxVersions = options.maxKeyVersions ?? DEFAULT_MAX_KEY_VERSIONS;
  if (!Number.isSafeInteger(maxVersions) || maxVersions < 1) {
    throw invalidRequest('maxKeyVersions must be a positive integer');
  }
  const clock = options.clock ?? systemClock;
  const metrics = resolveMetrics(options.metrics, invalidRequest);
  return {
    storage,
    backend,
    store: new PolicyStore(storage, backend, cacheSize, clock, keyCacheEvents(metrics)),
    ops: opRecorder(metrics),
    clock,
    prefix,
    maxBatch,
    maxVersions,
    settings: { cache_size: cacheSize },
    state: { closed: false },
  };
}

/** The auto-rotation schedule of the options: `undefined` when off. @internal */
export interface AutoRotateSchedule {
  readonly intervalMs: number;
  readonly onResult: ((result: AutoRotateResult) => void) | undefined;
}

/**
 * Validate `autoRotate`: `false` (off), or an object whose `intervalMs` is an
 * integer within what Node's timers keep (default 60,000) and whose
 * `onResult` is a function.
 * @throws TransitError `invalid_request` otherwise.
 * @internal
 */
export function autoRotateSchedule(options: TransitOptions): AutoRotateSchedule | undefined {
  const a: unknown = options.autoRotate;
  if (a === false) return undefined;
  const o = a === undefined ? {} : asRequest(a, "'autoRotate'");
  const intervalMs = positiveInt(o.intervalMs, 'autoRotate.intervalMs', 60_000, MAX_TIMER_MS);
  if (o.onResult !== undefined && typeof o.onResult !== 'function') {
    throw invalidRequest("'autoRotate.onResult' must be a function");
  }
  return { intervalMs, onResult: o.onResult as AutoRotateSchedule['onResult'] };
}
