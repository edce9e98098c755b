/**
 * The `Transit` class: the public face of the engine. Each method is a TSDoc
 * block and one line delegating to the endpoint module that implements it
 * (style.md convention 2); the route each method serves is named in its doc.
 * @module
 */
import { defaultBackend } from '#default-backend';
import { MemoryStorage } from '../../adapters/memory/index.js';
import { type Clock, systemClock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { nobleBackend } from '../crypto/noble/index.js';
import { invalidRequest } from '../errors.js';
import { PolicyStore } from '../keys/policy-store.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { type AutoRotateResult, autoRotateTick } from './auto-rotate.js';
import { backupKey, restoreKey } from './backup.js';
import { DEFAULT_MAX_BATCH } from './batch.js';
import * as config from './config.js';
import { generateDataKey } from './datakey.js';
import { decrypt, encrypt, rewrap } from './encrypt.js';
import type { Engine } from './engine.js';
import { hash, randomBytes } from './hash-random.js';
import { hmac, verify } from './hmac.js';
import { watchForChanges } from './invalidation.js';
import { createKey, deleteKey, listKeys, readKey, setSoftDeleted } from './keys.js';
import { asRequest } from './request.js';
import { rotateKey, trimKey, updateKeyConfig } from './rotate-config.js';
import type {
  BatchResult,
  CacheConfig,
  CiphertextBatchItem,
  CiphertextResult,
  CreateKeyRequest,
  DataKeyRequest,
  DataKeyResult,
  DecryptBatchItem,
  DecryptItem,
  DecryptRequest,
  EncryptItem,
  EncryptOptions,
  EncryptRequest,
  HashRequest,
  HmacBatchItem,
  HmacItem,
  HmacRequest,
  KeyConfigRequest,
  KeyInfo,
  KeysConfig,
  ListKeysRequest,
  RandomRequest,
  RestoreRequest,
  RewrapItem,
  RewrapRequest,
  VerifyBatchItem,
  VerifyItem,
  VerifyRequest,
} from './types.js';
import { withWarnings } from './warnings.js';

/**
 * Options of the {@link Transit} constructor.
 * @public
 */
export interface TransitOptions {
  /** Where keys live. Default: a new {@link MemoryStorage}. */
  storage?: StorageAdapter;
  /**
   * The crypto backend: `'noble'` (pure JS, any runtime), a custom
   * {@link CryptoBackend}, or omitted for the platform default (`node:crypto`
   * on Node, noble elsewhere).
   */
  crypto?: 'noble' | 'default' | CryptoBackend;
  /** Time source (tests pass a fake clock). Default: the wall clock. */
  clock?: Clock;
  /** Ciphertext and signature prefix. Default `vault` (as Vault, for interchange). */
  prefix?: string;
  /** Parsed-key cache size until one is stored with `writeCacheConfig` (0 = unbounded). */
  cacheSize?: number;
  /** Maximum items in one `batch_input`. Default 10,000. */
  maxBatchSize?: number;
  /**
   * Automatic rotation: `false` disables the timer (call {@link Transit.runAutoRotation}
   * yourself); otherwise a pass runs every `intervalMs` (default 60,000). The timer
   * does not keep a Node process alive.
   */
  autoRotate?: false | { intervalMs?: number };
}

function resolveBackend(c: TransitOptions['crypto']): CryptoBackend {
  if (c === undefined || c === 'default') return defaultBackend;
  if (c === 'noble') return nobleBackend;
  if (typeof c === 'object' && c !== null && typeof c.aeadSeal === 'function') return c;
  throw invalidRequest("'crypto' must be 'noble', 'default' or a CryptoBackend");
}

const PREFIX = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Vault's transit engine, in-process: named, versioned keys that encrypt,
 * decrypt, rewrap, HMAC and hash without exposing their material.
 *
 * Method inputs and outputs are the documented JSON shapes of the HTTP API
 * (snake_case fields); binary inputs take base64 strings or `Uint8Array`s.
 * Every failure is a {@link TransitError}.
 *
 * @example
 * ```ts
 * const transit = new Transit();
 * await transit.createKey('orders');
 * const { ciphertext } = await transit.encrypt('orders', { plaintext: btoa('hello') });
 * const { plaintext } = await transit.decrypt('orders', { ciphertext });
 * ```
 * @public
 */
export class Transit {
  readonly #e: Engine;
  readonly #ready: Promise<void>;
  #timer: ReturnType<typeof setInterval> | undefined;
  #unwatch: (() => Promise<void>) | undefined;

  constructor(opts: TransitOptions = {}) {
    const options = asRequest(opts, 'options') as TransitOptions;
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
    this.#e = {
      storage,
      backend,
      store: new PolicyStore(storage, backend, cacheSize),
      clock: options.clock ?? systemClock,
      prefix,
      maxBatch,
      settings: { disable_upsert: false, cache_size: cacheSize },
    };
    const e = this.#e;
    this.#ready = (async () => {
      await config.loadSettings(e);
      this.#unwatch = await watchForChanges(e);
    })();
    // Keep an unhandled rejection from escaping; every call awaits #ready and sees it.
    this.#ready.catch(() => undefined);
    if (options.autoRotate !== false) {
      const ms = options.autoRotate?.intervalMs ?? 60_000;
      this.#timer = setInterval(() => {
        this.runAutoRotation().catch(() => undefined);
      }, ms);
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** The crypto backend in use (`'node'`, `'noble'` or a custom name). */
  get backendName(): string {
    return this.#e.backend.name;
  }

  /**
   * Create a named key (`POST /transit/keys/:name`). An existing key is left
   * unchanged and returned, with the warning `key <name> already existed`.
   * @throws TransitError `invalid_request` for a bad name, type, flag combination, key_size or period.
   */
  async createKey(name: string, req: CreateKeyRequest = {}): Promise<KeyInfo> {
    await this.#ready;
    const { info, created } = await createKey(this.#e, name, req);
    return withWarnings(info, created ? [] : [`key ${name} already existed`]);
  }

  /**
   * Read a key's configuration and versions (`GET /transit/keys/:name`); never its material.
   * @throws TransitError `not_found` when the key does not exist.
   */
  async readKey(name: string): Promise<KeyInfo> {
    await this.#ready;
    return readKey(this.#e, name);
  }

  /** List key names, sorted, optionally paginated (`LIST /transit/keys`). */
  async listKeys(req: ListKeysRequest = {}): Promise<{ keys: string[] }> {
    await this.#ready;
    return listKeys(this.#e, req);
  }

  /**
   * Change a key's configuration (`POST /transit/keys/:name/config`).
   * `exportable` and `allow_plaintext_backup` can only be turned on.
   * @throws TransitError `invalid_request` when a version bound or flag change is not allowed.
   */
  async updateKeyConfig(name: string, req: KeyConfigRequest = {}): Promise<KeyInfo> {
    await this.#ready;
    const { info, warnings } = await updateKeyConfig(this.#e, name, req);
    return withWarnings(info, warnings);
  }

  /**
   * Add a new version and make it the latest (`POST /transit/keys/:name/rotate`).
   * @throws TransitError `invalid_request` for a missing or soft-deleted key.
   */
  async rotateKey(name: string): Promise<KeyInfo> {
    await this.#ready;
    return rotateKey(this.#e, name);
  }

  /**
   * Permanently delete versions below `min_available_version` (`POST /transit/keys/:name/trim`).
   * @throws TransitError `invalid_request` when the bound is outside the key's min versions.
   */
  async trimKey(name: string, req: { min_available_version?: number }): Promise<KeyInfo> {
    await this.#ready;
    return trimKey(this.#e, name, req ?? {});
  }

  /**
   * Soft-delete a key (`DELETE /transit/keys/:name/soft-delete`): it stays
   * stored, readable and configurable, but refuses cryptographic use.
   */
  async softDeleteKey(name: string): Promise<KeyInfo> {
    await this.#ready;
    const { info, warning } = await setSoftDeleted(this.#e, name, true);
    return withWarnings(info, warning ? [warning] : []);
  }

  /** Undo a soft delete (`POST /transit/keys/:name/soft-delete-restore`). */
  async restoreSoftDeletedKey(name: string): Promise<KeyInfo> {
    await this.#ready;
    const { info, warning } = await setSoftDeleted(this.#e, name, false);
    return withWarnings(info, warning ? [warning] : []);
  }

  /**
   * Delete a key and every version (`DELETE /transit/keys/:name`); requires `deletion_allowed`.
   * @throws TransitError `invalid_request` when deletion is not allowed or the key is missing.
   */
  async deleteKey(name: string): Promise<void> {
    await this.#ready;
    return deleteKey(this.#e, name);
  }

  /**
   * Encrypt (`POST /transit/encrypt/:name`). A missing key is created (upsert)
   * unless `options.upsert` is false or the global `disable_upsert` is set.
   * @throws TransitError `invalid_request` for bad input; batch items fail individually.
   */
  async encrypt(
    name: string,
    req: EncryptRequest & { batch_input: EncryptItem[] },
    options?: EncryptOptions,
  ): Promise<BatchResult<CiphertextBatchItem>>;
  async encrypt(
    name: string,
    req: EncryptRequest,
    options?: EncryptOptions,
  ): Promise<CiphertextResult>;
  async encrypt(
    name: string,
    req: EncryptRequest,
    options?: EncryptOptions,
  ): Promise<CiphertextResult | BatchResult<CiphertextBatchItem>> {
    await this.#ready;
    return encrypt(this.#e, name, req, options);
  }

  /**
   * Decrypt (`POST /transit/decrypt/:name`); `plaintext` is base64.
   * @throws TransitError `invalid_request` for a malformed, tampered or disallowed ciphertext.
   */
  async decrypt(
    name: string,
    req: DecryptRequest & { batch_input: DecryptItem[] },
  ): Promise<BatchResult<DecryptBatchItem>>;
  async decrypt(name: string, req: DecryptRequest): Promise<{ plaintext: string }>;
  async decrypt(
    name: string,
    req: DecryptRequest,
  ): Promise<{ plaintext: string } | BatchResult<DecryptBatchItem>> {
    await this.#ready;
    return decrypt(this.#e, name, req);
  }

  /**
   * Re-encrypt under the latest (or `key_version`) version without revealing
   * the plaintext (`POST /transit/rewrap/:name`).
   */
  async rewrap(
    name: string,
    req: RewrapRequest & { batch_input: RewrapItem[] },
  ): Promise<BatchResult<CiphertextBatchItem>>;
  async rewrap(name: string, req: RewrapRequest): Promise<CiphertextResult>;
  async rewrap(
    name: string,
    req: RewrapRequest,
  ): Promise<CiphertextResult | BatchResult<CiphertextBatchItem>> {
    await this.#ready;
    return rewrap(this.#e, name, req);
  }

  /**
   * Generate a data key encrypted under `name` (`POST /transit/datakey/:kind/:name`);
   * `kind` `'plaintext'` also returns it in the clear, `'wrapped'` does not.
   */
  async generateDataKey(
    name: string,
    kind: 'plaintext' | 'wrapped',
    req: DataKeyRequest = {},
  ): Promise<DataKeyResult> {
    await this.#ready;
    return generateDataKey(this.#e, name, kind, req);
  }

  /** HMAC with the key version's own secret (`POST /transit/hmac/:name(/:algorithm)`). */
  async hmac(
    name: string,
    req: HmacRequest & { batch_input: HmacItem[] },
  ): Promise<BatchResult<HmacBatchItem>>;
  async hmac(name: string, req: HmacRequest): Promise<{ hmac: string; key_version: number }>;
  async hmac(
    name: string,
    req: HmacRequest,
  ): Promise<{ hmac: string; key_version: number } | BatchResult<HmacBatchItem>> {
    await this.#ready;
    return hmac(this.#e, name, req);
  }

  /** Verify an HMAC (or, on signing keys, a signature) (`POST /transit/verify/:name`). */
  async verify(
    name: string,
    req: VerifyRequest & { batch_input: VerifyItem[] },
  ): Promise<BatchResult<VerifyBatchItem>>;
  async verify(name: string, req: VerifyRequest): Promise<{ valid: boolean }>;
  async verify(
    name: string,
    req: VerifyRequest,
  ): Promise<{ valid: boolean } | BatchResult<VerifyBatchItem>> {
    await this.#ready;
    return verify(this.#e, name, req);
  }

  /** Hash data (`POST /transit/hash(/:algorithm)`); `format` hex (default) or base64. */
  async hash(req: HashRequest): Promise<{ sum: string }> {
    await this.#ready;
    return hash(this.#e, req ?? {});
  }

  /** Random bytes from the platform CSPRNG (`POST /transit/random(/:source)(/:bytes)`). */
  async randomBytes(req: RandomRequest = {}): Promise<{ random_bytes: string }> {
    await this.#ready;
    return randomBytes(this.#e, req ?? {});
  }

  /**
   * Back up a key with all its versions and HMAC secrets, in Vault's backup
   * format (`GET /transit/backup/:name`). Requires `exportable` and
   * `allow_plaintext_backup`; the blob contains key material in the clear.
   * @throws TransitError `not_found` for a missing key; `invalid_request` when backup is not allowed.
   */
  async backupKey(name: string): Promise<{ backup: string }> {
    await this.#ready;
    return backupKey(this.#e, name);
  }

  /**
   * Restore a key from a backup blob made here or by Vault/OpenBao
   * (`POST /transit/restore(/:name)`). An existing name is refused unless `force`.
   * @throws TransitError `invalid_request` for a malformed blob or an existing name.
   */
  async restoreKey(req: RestoreRequest): Promise<void> {
    await this.#ready;
    return restoreKey(this.#e, req);
  }

  /** Read the global key settings (`GET /transit/config/keys`). */
  async readKeysConfig(): Promise<KeysConfig> {
    await this.#ready;
    return config.readKeysConfig(this.#e);
  }

  /** Write the global key settings (`POST /transit/config/keys`). */
  async writeKeysConfig(req: Partial<KeysConfig>): Promise<KeysConfig> {
    await this.#ready;
    return config.writeKeysConfig(this.#e, req ?? {});
  }

  /** Read the parsed-key cache size (`GET /transit/cache-config`). */
  async readCacheConfig(): Promise<CacheConfig> {
    await this.#ready;
    return config.readCacheConfig(this.#e);
  }

  /**
   * Set the parsed-key cache size (`POST /transit/cache-config`): 0 = unbounded,
   * else at least 10 (LRU). Applies at once.
   */
  async writeCacheConfig(req: Partial<CacheConfig>): Promise<CacheConfig> {
    await this.#ready;
    return config.writeCacheConfig(this.#e, req ?? {});
  }

  /** Run one auto-rotation pass now, on the configured clock. */
  async runAutoRotation(): Promise<AutoRotateResult> {
    await this.#ready;
    return autoRotateTick(this.#e);
  }

  /** Stop background work (the auto-rotation timer, the storage watch). Storage is left open. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#ready.catch(() => undefined);
    const unwatch = this.#unwatch;
    this.#unwatch = undefined;
    await unwatch?.();
  }
}
