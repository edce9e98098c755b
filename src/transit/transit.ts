/**
 * The `Transit` class: the public face of the engine. Each method is a TSDoc
 * block and one line delegating to the endpoint module that implements it
 * (style.md convention 2); the route each method serves is named in its doc.
 * @module
 */
import { type AutoRotateResult, autoRotateTick } from './auto-rotate.js';
import { backupKey, restoreKey } from './backup.js';
import { setCertificate, signCsr } from './certificates.js';
import * as config from './config.js';
import { generateDataKey } from './datakey.js';
import { decrypt, encrypt, rewrap } from './encrypt.js';
import type { Engine } from './engine.js';
import { exportKey } from './export.js';
import { hash, randomBytes } from './hash-random.js';
import { hmac } from './hmac.js';
import { watchForChanges } from './invalidation.js';
import { createKey, deleteKey, listKeys, readKey, setSoftDeleted } from './keys.js';
import { engineFromOptions, type TransitOptions } from './options.js';
import { asRequest } from './request.js';
import { rotateKey, trimKey, updateKeyConfig } from './rotate-config.js';
import { sign, verify } from './sign.js';
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
  ExportKeyOptions,
  ExportKeyResult,
  ExportKeyType,
  HashRequest,
  HmacBatchItem,
  HmacItem,
  HmacRequest,
  KeyConfigRequest,
  KeyInfo,
  KeysConfig,
  ListKeysRequest,
  RandomRequest,
  ReadKeyRequest,
  RestoreRequest,
  RewrapItem,
  RewrapRequest,
  SetCertificateRequest,
  SetCertificateResult,
  SignBatchItem,
  SignCsrRequest,
  SignCsrResult,
  SignItem,
  SignRequest,
  SignResult,
  VerifyBatchItem,
  VerifyItem,
  VerifyRequest,
} from './types.js';
import { withWarnings } from './warnings.js';

export type { TransitOptions } from './options.js';

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
    this.#e = engineFromOptions(options);
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
   * Read a key's configuration and versions (`GET /transit/keys/:name`); never
   * its private material. Asymmetric keys list each version's public key;
   * `context` shows a derived Ed25519 key's per-context public keys.
   * @throws TransitError `not_found` when the key does not exist; `invalid_request` for a bad context.
   */
  async readKey(name: string, req: ReadKeyRequest = {}): Promise<KeyInfo> {
    await this.#ready;
    return readKey(this.#e, name, req);
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

  /**
   * Sign with an asymmetric key (`POST /transit/sign/:name(/:hash_algorithm)`):
   * `vault:v<N>:` + base64 (URL-safe without padding for `jws`). Batch items
   * fail individually; the batch itself succeeds.
   * @throws TransitError `invalid_request` for bad options, a missing key, a key
   * that cannot sign, or (single mode) a bad input, context or version.
   */
  async sign(
    name: string,
    req: SignRequest & { batch_input: SignItem[] },
  ): Promise<BatchResult<SignBatchItem>>;
  async sign(name: string, req: SignRequest): Promise<SignResult>;
  async sign(name: string, req: SignRequest): Promise<SignResult | BatchResult<SignBatchItem>> {
    await this.#ready;
    return sign(this.#e, name, req);
  }

  /**
   * Verify a signature (keys that sign) or an HMAC (any key)
   * (`POST /transit/verify/:name(/:hash_algorithm)`); exactly one kind per request.
   * @throws TransitError `invalid_request` for bad options, a malformed value, or a
   * key that cannot verify signatures; batch items fail individually.
   */
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

  /**
   * Export key material (`GET /transit/export/:type/:name(/:version)`): every
   * version (omitted), `latest`, `N` or `vN`; `format` `''`, `raw`, `der` or `pem`.
   * All types but `public-key` and `certificate-chain` need `exportable`.
   * @throws TransitError `not_found` for a missing key; `invalid_request` when
   * not exportable, not applicable to the key type, or the version is not available.
   */
  async exportKey(
    type: ExportKeyType,
    name: string,
    version?: string | number,
    options: ExportKeyOptions = {},
  ): Promise<ExportKeyResult> {
    await this.#ready;
    return exportKey(this.#e, type, name, version, options);
  }

  /**
   * Sign a PKCS#10 CSR with a key version (`POST /transit/keys/:name/csr`): an
   * empty one, or `csr` (PEM) with its subject and attributes kept and its key replaced.
   * @throws TransitError `invalid_request` for a missing, derived or non-signing
   * key, a public-only or missing version, or a template that does not parse.
   */
  async signCsr(name: string, req: SignCsrRequest = {}): Promise<SignCsrResult> {
    await this.#ready;
    return signCsr(this.#e, name, req);
  }

  /**
   * Store a PEM certificate chain (end entity first) for a key version
   * (`POST /transit/keys/:name/set-certificate`), replacing any earlier one.
   * @throws TransitError `invalid_request` for a missing, derived or non-signing
   * key, a chain that does not parse, or a leaf whose key is not the version's.
   */
  async setCertificate(name: string, req: SetCertificateRequest): Promise<SetCertificateResult> {
    await this.#ready;
    return setCertificate(this.#e, name, req);
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
