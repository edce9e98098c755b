/**
 * The `Transit` class: the public face of the engine. Each method is a TSDoc
 * block and one line delegating to the endpoint module that implements it
 * (one module per endpoint); the route each method serves is named in its doc.
 *
 * Signing and signature verification, CSRs and certificates, backup and restore, BYOK
 * import and export, the wrapping key, key export, rotation, trimming and
 * key configuration (with the auto-rotation pass), data keys, hash and random
 * bytes, and random access to an encrypted object are loaded with a dynamic
 * `import()` on first use: a browser bundle of `Transit` for encryption and HMAC carries
 * none of their code (issue 22: the edge build; `npm run check:bundle`).
 * @module
 */

import { withWarnings } from '../result-meta.js';
import type { StreamDecryptOptions, StreamEncryptOptions } from '../stream/data-key.js';
import type { EncryptedObject } from '../stream/reader.js';
import type { RandomAccessSource } from '../stream/source.js';
import { decryptStream, encryptStream } from '../stream/transforms.js';
import { lazy } from '../util/lazy.js';
import { markPromised } from '../util/promised.js';
import type { AutoRotateResult } from './auto-rotate.js';
import * as config from './config.js';
import { decrypt, encrypt, rewrap } from './encrypt.js';
import type { Engine } from './engine.js';
import { hmac } from './hmac.js';
import { createKey, deleteKey, listKeys, readKey, setSoftDeleted } from './keys.js';
import { type Lifecycle, startTransit } from './lifecycle.js';
import type * as M from './mobility-types.js';
import type { TransitOptions } from './options.js';
import type * as T from './types.js';
import { verify } from './verify.js';

/** Endpoint modules loaded on first use (see the module comment). */
const rotateConfig = lazy(() => import('./rotate-config.js'));
const dataKeys = lazy(() => import('./datakey.js'));
const randomAccess = lazy(() => import('../stream/open.js'));
const signing = lazy(() => import('./sign.js'));
const exporting = lazy(() => import('./export.js'));
const certificates = lazy(() => import('./certificates.js'));
const hashRandom = lazy(() => import('./hash-random.js'));
const backups = lazy(() => import('./backup.js'));
const wrappingKey = lazy(() => import('./wrapping-key.js'));
const imports = lazy(() => import('./import.js'));
const byok = lazy(() => import('./byok.js'));
const autoRotate = lazy(() => import('./auto-rotate.js'));

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
  readonly #life: Lifecycle;

  constructor(opts: TransitOptions = {}) {
    this.#life = startTransit(opts, async (proceed) => {
      const { autoRotateTick } = await autoRotate();
      return autoRotateTick(await this.#life.engine(), proceed);
    });
  }

  /**
   * Run a data call on the engine: directly once start-up has finished (no
   * tick awaiting it, no async wrapper adopting the call's promise: ≈ 0.3 µs
   * of a 5 µs decrypt), else after it.
   */
  #run<Q, O, R>(
    fn: (e: Engine, name: string, req: Q, options: O) => Promise<R>,
    name: string,
    req: Q,
    options: O,
  ): Promise<R> {
    // Fixed arity: a rest parameter and a spread call cost ≈ 130 instructions a call.
    const e = this.#life.started();
    return e
      ? fn(e, name, req, options)
      : this.#life.engine().then((x) => fn(x, name, req, options));
  }

  /** The crypto backend in use (`'node'`, `'noble'` or a custom name). */
  get backendName(): string {
    return this.#life.context.backend.name;
  }

  /**
   * Create a named key (`POST /transit/keys/:name`). An existing key is left
   * unchanged and returned, with the warning `key <name> already existed`.
   * @throws TransitError `invalid_request` for a bad name, type, flag combination, key_size or period.
   */
  async createKey(name: string, req: T.CreateKeyRequest = {}): Promise<T.KeyInfo> {
    const { info, created } = await createKey(await this.#life.engine(), name, req);
    return withWarnings(info, created ? [] : [`key ${name} already existed`]);
  }

  /**
   * Read a key's configuration and versions (`GET /transit/keys/:name`); never
   * its private material. Asymmetric keys list each version's public key;
   * `context` shows a derived Ed25519 key's per-context public keys.
   * @throws TransitError `not_found` when the key does not exist; `invalid_request` for a bad context.
   */
  async readKey(name: string, req: T.ReadKeyRequest = {}): Promise<T.KeyInfo> {
    return readKey(await this.#life.engine(), name, req);
  }

  /** List key names, sorted, optionally paginated (`LIST /transit/keys`). */
  async listKeys(req: T.ListKeysRequest = {}): Promise<{ keys: string[] }> {
    return listKeys(await this.#life.engine(), req);
  }

  /**
   * Change a key's configuration (`POST /transit/keys/:name/config`).
   * `exportable` and `allow_plaintext_backup` can only be turned on.
   * @throws TransitError `invalid_request` when a version bound or flag change is not allowed.
   */
  async updateKeyConfig(name: string, req: T.KeyConfigRequest = {}): Promise<T.KeyInfo> {
    const { updateKeyConfig } = await rotateConfig();
    const { info, warnings } = await updateKeyConfig(await this.#life.engine(), name, req);
    return withWarnings(info, warnings);
  }

  /**
   * Add a new version and make it the latest (`POST /transit/keys/:name/rotate`).
   * @throws TransitError `invalid_request` for a missing or soft-deleted key.
   */
  async rotateKey(name: string): Promise<T.KeyInfo> {
    const { rotateKey } = await rotateConfig();
    return rotateKey(await this.#life.engine(), name);
  }

  /**
   * Permanently delete versions below `min_available_version` (`POST /transit/keys/:name/trim`).
   * @throws TransitError `invalid_request` when the bound is outside the key's min versions.
   */
  async trimKey(name: string, req: { min_available_version?: number }): Promise<T.KeyInfo> {
    const { trimKey } = await rotateConfig();
    return trimKey(await this.#life.engine(), name, req ?? {});
  }

  /**
   * Soft-delete a key (`DELETE /transit/keys/:name/soft-delete`): it stays
   * stored, readable and configurable, but refuses cryptographic use.
   */
  async softDeleteKey(name: string): Promise<T.KeyInfo> {
    const { info, warning } = await setSoftDeleted(await this.#life.engine(), name, true);
    return withWarnings(info, warning ? [warning] : []);
  }

  /** Undo a soft delete (`POST /transit/keys/:name/soft-delete-restore`). */
  async restoreSoftDeletedKey(name: string): Promise<T.KeyInfo> {
    const { info, warning } = await setSoftDeleted(await this.#life.engine(), name, false);
    return withWarnings(info, warning ? [warning] : []);
  }

  /**
   * Delete a key and every version (`DELETE /transit/keys/:name`); requires `deletion_allowed`.
   * @throws TransitError `invalid_request` when deletion is not allowed or the key is missing.
   */
  async deleteKey(name: string): Promise<void> {
    return deleteKey(await this.#life.engine(), name);
  }

  /**
   * Encrypt (`POST /transit/encrypt/:name`). A missing key is created (upsert)
   * unless `options.upsert` is false or the global `disable_upsert` is set.
   * @throws TransitError `invalid_request` for bad input; batch items fail individually.
   */
  encrypt(
    name: string,
    req: T.EncryptRequest & { batch_input: T.EncryptItem[] },
    options?: T.EncryptOptions,
  ): Promise<T.BatchResult<T.CiphertextBatchItem>>;
  encrypt(
    name: string,
    req: T.EncryptRequest,
    options?: T.EncryptOptions,
  ): Promise<T.CiphertextResult>;
  encrypt(
    name: string,
    req: T.EncryptRequest,
    options?: T.EncryptOptions,
  ): Promise<T.CiphertextResult | T.BatchResult<T.CiphertextBatchItem>> {
    return this.#run(encrypt, name, req, options);
  }

  /**
   * Decrypt (`POST /transit/decrypt/:name`); `plaintext` is base64.
   * @throws TransitError `invalid_request` for a malformed, tampered or disallowed ciphertext.
   */
  decrypt(
    name: string,
    req: T.DecryptRequest & { batch_input: T.DecryptItem[] },
  ): Promise<T.BatchResult<T.DecryptBatchItem>>;
  decrypt(name: string, req: T.DecryptRequest): Promise<{ plaintext: string }>;
  decrypt(
    name: string,
    req: T.DecryptRequest,
  ): Promise<{ plaintext: string } | T.BatchResult<T.DecryptBatchItem>> {
    return this.#run(decrypt, name, req, undefined);
  }

  /**
   * Re-encrypt under the latest (or `key_version`) version without revealing
   * the plaintext (`POST /transit/rewrap/:name`).
   */
  rewrap(
    name: string,
    req: T.RewrapRequest & { batch_input: T.RewrapItem[] },
  ): Promise<T.BatchResult<T.CiphertextBatchItem>>;
  rewrap(name: string, req: T.RewrapRequest): Promise<T.CiphertextResult>;
  rewrap(
    name: string,
    req: T.RewrapRequest,
  ): Promise<T.CiphertextResult | T.BatchResult<T.CiphertextBatchItem>> {
    return this.#run(rewrap, name, req, undefined);
  }

  /**
   * Generate a data key encrypted under `name` (`POST /transit/datakey/:kind/:name`);
   * `kind` `'plaintext'` also returns it in the clear, `'wrapped'` does not.
   */
  async generateDataKey(
    name: string,
    kind: 'plaintext' | 'wrapped',
    req: T.DataKeyRequest = {},
  ): Promise<T.DataKeyResult> {
    const { generateDataKey } = await dataKeys();
    return generateDataKey(await this.#life.engine(), name, kind, req);
  }

  /**
   * Encrypt a byte stream of any length into a TKS1 envelope
   * (docs/stream-format.md): a fresh data key wrapped by `name` as
   * `datakey` would, then Cobblestone-256 chunks, in constant memory. The
   * first output chunk is the envelope header, enqueued once the data key is
   * wrapped; a failure before it (unknown key, a key that cannot encrypt, a
   * missing `context`) errors the stream before any byte. In Node,
   * `toNodeStream` (`transitkit/stream/node`) makes either stream a `Transform`.
   * @throws TransitError (as the stream's error) `not_found` for a missing key;
   *   `invalid_request` for a key or options that cannot wrap the data key.
   * @example
   * ```ts
   * const out = new Blob(['large object']).stream().pipeThrough(transit.encryptStream('backups'));
   * ```
   */
  encryptStream(
    name: string,
    options?: StreamEncryptOptions,
  ): TransformStream<Uint8Array, Uint8Array> {
    return encryptStream(() => this.#life.engine(), name, options);
  }

  /**
   * Decrypt a TKS1 envelope stream. Plaintext is released chunk by chunk,
   * each only after it authenticates; tamper, truncation, reordering,
   * trailing data, a bad header or a wrapped key that does not decrypt under
   * `name` (with `context`, within `min_decryption_version`) error the stream.
   * @throws TransitError (as the stream's error) `not_found` for a missing key;
   *   `invalid_request` for anything wrong with the envelope.
   */
  decryptStream(
    name: string,
    options?: StreamDecryptOptions,
  ): TransformStream<Uint8Array, Uint8Array> {
    return decryptStream(() => this.#life.engine(), name, options);
  }

  /**
   * Open a TKS1 envelope held by a `Blob`, a Node `FileHandle` or a
   * `{ read(offset, length), size }` object for random access: each read
   * fetches and authenticates only the chunks it covers.
   * @throws TransitError `not_found` for a missing key; `invalid_request` for
   *   a bad envelope or a wrapped key that does not decrypt.
   */
  async openEncrypted(
    name: string,
    source: RandomAccessSource,
    options?: StreamDecryptOptions,
  ): Promise<EncryptedObject> {
    const { openEncrypted } = await randomAccess();
    return openEncrypted(await this.#life.engine(), name, source, options);
  }

  /** HMAC with the key version's own secret (`POST /transit/hmac/:name(/:algorithm)`). */
  hmac(
    name: string,
    req: T.HmacRequest & { batch_input: T.HmacItem[] },
  ): Promise<T.BatchResult<T.HmacBatchItem>>;
  hmac(name: string, req: T.HmacRequest): Promise<{ hmac: string; key_version: number }>;
  hmac(
    name: string,
    req: T.HmacRequest,
  ): Promise<{ hmac: string; key_version: number } | T.BatchResult<T.HmacBatchItem>> {
    return this.#run(hmac, name, req, undefined);
  }

  /**
   * Sign with an asymmetric key (`POST /transit/sign/:name(/:hash_algorithm)`):
   * `vault:v<N>:` + base64 (URL-safe without padding for `jws`). Batch items
   * fail individually; the batch itself succeeds.
   * @throws TransitError `invalid_request` for bad options, a missing key, a key
   * that cannot sign, or (single mode) a bad input, context or version.
   */
  sign(
    name: string,
    req: T.SignRequest & { batch_input: T.SignItem[] },
  ): Promise<T.BatchResult<T.SignBatchItem>>;
  sign(name: string, req: T.SignRequest): Promise<T.SignResult>;
  sign(name: string, req: T.SignRequest): Promise<T.SignResult | T.BatchResult<T.SignBatchItem>> {
    // Signing code loaded and the engine started: no tick before the key is read.
    const m = signing.loaded;
    const e = this.#life.started();
    return m && e ? m.sign(e, name, req) : this.#signLater(name, req);
  }

  /** {@link sign} before the signing code is loaded or the engine has started. */
  async #signLater(
    name: string,
    req: T.SignRequest,
  ): Promise<T.SignResult | T.BatchResult<T.SignBatchItem>> {
    const { sign } = await signing();
    return sign(await this.#life.engine(), name, req);
  }

  /**
   * Verify a signature (keys that sign) or an HMAC (any key)
   * (`POST /transit/verify/:name(/:hash_algorithm)`); exactly one kind per request.
   * @throws TransitError `invalid_request` for bad options, a malformed value, or a
   * key that cannot verify signatures; batch items fail individually.
   */
  verify(
    name: string,
    req: T.VerifyRequest & { batch_input: T.VerifyItem[] },
  ): Promise<T.BatchResult<T.VerifyBatchItem>>;
  verify(name: string, req: T.VerifyRequest): Promise<{ valid: boolean }>;
  verify(
    name: string,
    req: T.VerifyRequest,
  ): Promise<{ valid: boolean } | T.BatchResult<T.VerifyBatchItem>> {
    return this.#run(verify, name, req, undefined);
  }

  /**
   * Export key material (`GET /transit/export/:type/:name(/:version)`): every
   * version (omitted), `latest`, `N` or `vN`; `format` `''`, `raw`, `der` or `pem`.
   * All types but `public-key` and `certificate-chain` need `exportable`.
   * @throws TransitError `not_found` for a missing key; `invalid_request` when
   * not exportable, not applicable to the key type, or the version is not available.
   */
  async exportKey(
    type: T.ExportKeyType,
    name: string,
    version?: string | number,
    options: T.ExportKeyOptions = {},
  ): Promise<T.ExportKeyResult> {
    const { exportKey } = await exporting();
    return exportKey(await this.#life.engine(), type, name, version, options);
  }

  /**
   * Sign a PKCS#10 CSR with a key version (`POST /transit/keys/:name/csr`): an
   * empty one, or `csr` (PEM) with its subject and attributes kept and its key replaced.
   * @throws TransitError `invalid_request` for a missing, derived or non-signing
   * key, a public-only or missing version, or a template that does not parse.
   */
  async signCsr(name: string, req: T.SignCsrRequest = {}): Promise<T.SignCsrResult> {
    const { signCsr } = await certificates();
    return signCsr(await this.#life.engine(), name, req);
  }

  /**
   * Store a PEM certificate chain (end entity first) for a key version
   * (`POST /transit/keys/:name/set-certificate`), replacing any earlier one.
   * @throws TransitError `invalid_request` for a missing, derived or non-signing
   * key, a chain that does not parse, or a leaf whose key is not the version's.
   */
  async setCertificate(
    name: string,
    req: T.SetCertificateRequest,
  ): Promise<T.SetCertificateResult> {
    const { setCertificate } = await certificates();
    return setCertificate(await this.#life.engine(), name, req);
  }

  /** Hash data (`POST /transit/hash(/:algorithm)`); `format` hex (default) or base64. */
  async hash(req: T.HashRequest): Promise<{ sum: string }> {
    const { hash } = await hashRandom();
    return hash(await this.#life.engine(), req ?? {});
  }

  /**
   * Random bytes from the platform CSPRNG (`POST /transit/random(/:source)(/:bytes)`).
   * `source: 'seal'` warns, as Vault does on a seal without entropy augmentation.
   */
  async randomBytes(req: T.RandomRequest = {}): Promise<{ random_bytes: string }> {
    const { randomBytes } = await hashRandom();
    return randomBytes(await this.#life.engine(), req ?? {});
  }

  /**
   * Back up a key with all its versions and HMAC secrets, in Vault's backup
   * format (`GET /transit/backup/:name`). Requires `exportable` and
   * `allow_plaintext_backup`; the blob contains key material in the clear.
   * @throws TransitError `not_found` for a missing key; `invalid_request` when backup is not allowed.
   */
  async backupKey(name: string): Promise<{ backup: string }> {
    const { backupKey } = await backups();
    return backupKey(await this.#life.engine(), name);
  }

  /**
   * Restore a key from a backup blob made here or by Vault/OpenBao
   * (`POST /transit/restore(/:name)`). An existing name is refused unless `force`.
   * @throws TransitError `invalid_request` for a malformed blob or an existing name.
   */
  async restoreKey(req: T.RestoreRequest): Promise<void> {
    const { restoreKey } = await backups();
    return restoreKey(await this.#life.engine(), req);
  }

  /**
   * The BYOK wrapping key (`GET /transit/wrapping_key`): a 4096-bit RSA public
   * key (PEM) to wrap material for {@link Transit.importKey}. Created on first
   * use, once per storage; it is not listed among the keys.
   */
  async getWrappingKey(): Promise<M.WrappingKeyResult> {
    const { getWrappingKey } = await wrappingKey();
    return getWrappingKey(await this.#life.engine());
  }

  /**
   * Create a key from existing material (`POST /transit/keys/:name/import`):
   * `ciphertext` wrapped for {@link Transit.getWrappingKey} (raw symmetric key
   * or PKCS#8), or a `public_key` PEM alone (verify/encrypt only). Nothing is
   * stored unless the whole request is valid.
   * @throws TransitError `invalid_request` for an existing name, bad options, or
   * material that does not unwrap, parse or fit the type.
   */
  async importKey(name: string, req: M.ImportKeyRequest): Promise<void> {
    const { importKey } = await imports();
    return importKey(await this.#life.engine(), name, req);
  }

  /**
   * Add material to an imported key (`POST /transit/keys/:name/import_version`):
   * a new version, or the private key of a public-only version (`version`, or
   * the latest when the pair matches). Not for generated or rotated keys.
   * @throws TransitError `invalid_request` as for {@link Transit.importKey}, for a
   * key that does not take imports, or a key pair that does not match.
   */
  async importKeyVersion(name: string, req: M.ImportKeyVersionRequest): Promise<void> {
    const { importKeyVersion } = await imports();
    return importKeyVersion(await this.#life.engine(), name, req);
  }

  /**
   * Wrap `source`'s versions for the RSA key `destination` in the import
   * format (`GET /transit/byok-export/:destination/:source(/:version)`), e.g.
   * for another engine's wrapping key imported here with `public_key`.
   * @throws TransitError `not_found` for a missing key; `invalid_request` for a
   * non-RSA destination, a non-exportable or soft-deleted key, or a bad version or hash.
   */
  async byokExport(
    destination: string,
    source: string,
    options: M.ByokExportOptions = {},
  ): Promise<M.ByokExportResult> {
    const { byokExport } = await byok();
    return byokExport(await this.#life.engine(), destination, source, options);
  }

  /** Read the global key settings (`GET /transit/config/keys`). */
  async readKeysConfig(): Promise<T.KeysConfig> {
    return config.readKeysConfig(await this.#life.engine());
  }

  /** Write the global key settings (`POST /transit/config/keys`). */
  async writeKeysConfig(req: Partial<T.KeysConfig>): Promise<T.KeysConfig> {
    return config.writeKeysConfig(await this.#life.engine(), req ?? {});
  }

  /** Read the parsed-key cache size (`GET /transit/cache-config`). */
  async readCacheConfig(): Promise<T.CacheConfig> {
    return config.readCacheConfig(await this.#life.engine());
  }

  /**
   * Set the parsed-key cache size (`POST /transit/cache-config`): 0 = unbounded,
   * else at least 10 (LRU). Applies at once.
   */
  async writeCacheConfig(req: Partial<T.CacheConfig>): Promise<T.CacheConfig> {
    return config.writeCacheConfig(await this.#life.engine(), req ?? {});
  }

  /** Run one auto-rotation pass now, on the configured clock. */
  async runAutoRotation(): Promise<AutoRotateResult> {
    const { autoRotateTick } = await autoRotate();
    return autoRotateTick(await this.#life.engine());
  }

  /** Stop background work (the auto-rotation timer, the storage watch). Storage is left open. */
  async close(): Promise<void> {
    return this.#life.close();
  }
}

// Promise-returning without being `async` (see `#run`): a sealed facade
// (src/node/sealed-ref.ts) must reject these, as it does the async methods.
markPromised(Transit.prototype, ['encrypt', 'decrypt', 'rewrap', 'hmac', 'sign', 'verify']);
