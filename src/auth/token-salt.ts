/**
 * The token store's salted hash and its randomness.
 *
 * - A token is never stored: its entry is keyed by hex SHA-256(salt ‖ token),
 *   with a random 32-byte per-store salt kept in storage (Vault's salted token
 *   IDs; a plain digest, since HMAC costs 2–4× more on every request).
 * - The salt is created once, by the instance that wins a compare-and-set on
 *   it (every other instance reads the winner's), and never changes; a failed
 *   load is forgotten, so the next use reads storage again. Once it is loaded,
 *   hashing needs no promise (the HTTP adapter's cached path, ./answer-now.ts).
 * - Tokens and accessors are base62 characters from the platform CSPRNG, drawn
 *   without modulo bias.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { digestText } from '../crypto/text.js';
import { TransitError } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { B62, CAS_RETRIES, K } from './token-entry.js';

/** What the token store uses of a crypto backend. @internal */
export type TokenCrypto = Pick<CryptoBackend, 'digest' | 'digestText' | 'randomBytes'>;

/**
 * A store's salt, the hash of a token under it, and random token characters.
 * Construction starts loading the salt.
 * @internal
 */
export class TokenSalt {
  readonly #storage: StorageAdapter;
  readonly #backend: TokenCrypto;
  /** The salt, loading or loaded; a failed load is dropped and retried by the next use. */
  #salt: Promise<Uint8Array> | undefined;
  /** The salt once loaded (it never changes): hashing then needs no promise. */
  #saltBytes: Uint8Array | undefined;

  constructor(storage: StorageAdapter, backend: TokenCrypto) {
    this.#storage = storage;
    this.#backend = backend;
    this.#salt = this.#loadSalt();
    this.#salt.catch(() => undefined);
  }

  /** The salt; a failed load is forgotten, so the next use reads storage again. */
  async #saltValue(): Promise<Uint8Array> {
    const loading = this.#salt ?? this.#loadSalt();
    this.#salt = loading;
    try {
      const salt = await loading;
      this.#saltBytes = salt;
      return salt;
    } catch (e) {
      if (this.#salt === loading) this.#salt = undefined;
      throw e;
    }
  }

  async #loadSalt(): Promise<Uint8Array> {
    for (let i = 0; i < CAS_RETRIES; i++) {
      const stored = await this.#storage.get(K.salt);
      if (stored) return stored;
      const fresh = this.#backend.randomBytes(32);
      if (await this.#storage.compareAndSet(K.salt, undefined, fresh)) return fresh;
    }
    throw new TransitError('conflict', 'could not initialise the token salt');
  }

  /** Hex SHA-256(salt ‖ token); no promise once the salt is loaded. */
  hash(token: string): string | Promise<string> {
    const salt = this.#saltBytes;
    if (salt === undefined) return this.#saltValue().then(() => this.hash(token));
    return digestText(this.#backend, 'sha256', [salt, token], 'hex');
  }

  /** `n` random base62 characters. */
  random(n: number): string {
    let out = '';
    while (out.length < n) {
      for (const b of this.#backend.randomBytes(n * 2)) {
        if (b < 248 && out.length < n) out += B62[b % 62];
      }
    }
    return out;
  }
}
