/**
 * The barrier keyring and its sealed form in storage.
 *
 * The keyring holds versioned 32-byte AES-256-GCM keys ("terms"); the newest
 * is active, older ones stay to read entries written before a rotation. It is
 * stored at `core/keyring` (below the barrier, which reserves `core/`) as one
 * JSON document, encrypted by the **root key**:
 *
 * ```json
 * {"v":1,"seal":{"type":"shamir","secret_shares":5,"secret_threshold":3},
 *  "nonce":"<b64 12>","ciphertext":"<b64 AES-256-GCM(keyring JSON)>"}
 * ```
 *
 * The seal configuration is in the clear (seal-status reads it while sealed);
 * it is bound to the ciphertext as associated data, so editing it (say, the
 * threshold) makes the keyring fail to open. One document means initialising
 * is one atomic compare-and-set, and a rotation another: two instances can
 * never both initialise, and a lost rotation race is detected.
 *
 * Runtime-neutral (AES-GCM from the crypto backend).
 * @module
 */

import type { Clock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { encodeBase64, fromUtf8, tryDecodeBase64, utf8 } from '../encoding.js';
import { conflict, internal, invalidRequest } from '../errors.js';
import { hasWatch, type StorageAdapter } from '../storage/adapter.js';
import type { BarrierKeyring } from '../storage/barrier.js';

/** Where the sealed keyring lives in the storage below the barrier. @internal */
export const KEYRING_PATH = 'core/keyring';

/** The length of the root key and of every keyring key. @public */
export const ROOT_KEY_BYTES = 32;

/** How the root key is protected: Shamir shares, or handed in by the application. @public */
export interface SealConfig {
  type: 'shamir' | 'auto';
  secret_shares: number;
  secret_threshold: number;
}

/** The backend primitives the keyring uses. @internal */
export type KeyringCrypto = Pick<CryptoBackend, 'aeadSeal' | 'aeadOpen' | 'randomBytes'>;

interface Term {
  term: number;
  key: Uint8Array;
  /** Creation time, ms. */
  created: number;
}

/**
 * The barrier's keys: one active term, older terms kept for reading.
 * Immutable: {@link Keyring.rotated} returns a new keyring.
 * @internal
 */
export class Keyring implements BarrierKeyring {
  readonly #terms: ReadonlyMap<number, Term>;
  readonly activeTerm: number;

  private constructor(terms: readonly Term[]) {
    this.#terms = new Map(terms.map((t) => [t.term, t]));
    this.activeTerm = Math.max(...terms.map((t) => t.term));
  }

  /** A new keyring with one random key (term 1). */
  static create(crypto: KeyringCrypto, nowMs: number): Keyring {
    return new Keyring([{ term: 1, key: crypto.randomBytes(ROOT_KEY_BYTES), created: nowMs }]);
  }

  key(term: number): Uint8Array | undefined {
    return this.#terms.get(term)?.key;
  }

  /** When `term` was created (ms), or `undefined` when the keyring lacks it. */
  createdAt(term: number): number | undefined {
    return this.#terms.get(term)?.created;
  }

  /** Number of terms. */
  get size(): number {
    return this.#terms.size;
  }

  /** A keyring with one more term, which becomes active. */
  rotated(crypto: KeyringCrypto, nowMs: number): Keyring {
    const next = this.activeTerm + 1;
    if (next > 0xffff_ffff) throw internal('barrier: keyring terms exhausted');
    const key = crypto.randomBytes(ROOT_KEY_BYTES);
    return new Keyring([...this.#terms.values(), { term: next, key, created: nowMs }]);
  }

  /** Overwrite every key (after a seal, in case a copy is still referenced). */
  wipe(): void {
    for (const t of this.#terms.values()) t.key.fill(0);
  }

  /** @internal */
  encode(): Uint8Array {
    const terms = [...this.#terms.values()].map((t) => ({
      term: t.term,
      key: encodeBase64(t.key),
      created: t.created,
    }));
    return utf8(JSON.stringify({ terms }));
  }

  /** @internal */
  static decode(bytes: Uint8Array): Keyring {
    const doc = JSON.parse(fromUtf8(bytes)) as { terms?: unknown };
    if (!Array.isArray(doc.terms) || doc.terms.length === 0) throw new Error('no terms');
    const terms = doc.terms.map((t: { term?: unknown; key?: unknown; created?: unknown }) => {
      const key = typeof t.key === 'string' ? tryDecodeBase64(t.key) : undefined;
      if (!Number.isSafeInteger(t.term) || !key || key.length !== ROOT_KEY_BYTES) {
        throw new Error('bad term');
      }
      return { term: t.term as number, key, created: Number(t.created) || 0 };
    });
    return new Keyring(terms);
  }
}

/** The stored document, parsed. @internal */
export interface SealedKeyring {
  seal: SealConfig;
  /** The stored bytes, for compare-and-set. */
  raw: Uint8Array;
  nonce: Uint8Array;
  ciphertext: Uint8Array;
}

const aadOf = (seal: SealConfig) =>
  utf8(`transitkit/core/keyring/v1:${seal.type}:${seal.secret_shares}:${seal.secret_threshold}`);

/** Encrypt a keyring under the root key into its stored document. @internal */
export function sealKeyring(
  crypto: KeyringCrypto,
  rootKey: Uint8Array,
  seal: SealConfig,
  keyring: Keyring,
): Uint8Array {
  const nonce = crypto.randomBytes(12);
  const ct = crypto.aeadSeal('aes-gcm', rootKey, nonce, keyring.encode(), aadOf(seal));
  const doc = { v: 1, seal, nonce: encodeBase64(nonce), ciphertext: encodeBase64(ct) };
  return utf8(JSON.stringify(doc));
}

/**
 * Read the stored document (no key needed); `undefined` when the store is not
 * initialised.
 * @throws TransitError `internal` for a damaged document.
 * @internal
 */
export async function readSealedKeyring(
  storage: StorageAdapter,
): Promise<SealedKeyring | undefined> {
  const raw = await storage.get(KEYRING_PATH);
  if (raw === undefined) return undefined;
  try {
    const doc = JSON.parse(fromUtf8(raw)) as Record<string, unknown>;
    const seal = doc.seal as SealConfig;
    const nonce = tryDecodeBase64(String(doc.nonce));
    const ciphertext = tryDecodeBase64(String(doc.ciphertext));
    if (
      doc.v !== 1 ||
      (seal?.type !== 'shamir' && seal?.type !== 'auto') ||
      !Number.isSafeInteger(seal.secret_shares) ||
      !Number.isSafeInteger(seal.secret_threshold) ||
      !nonce ||
      !ciphertext
    ) {
      throw new Error('bad document');
    }
    const clean: SealConfig = {
      type: seal.type,
      secret_shares: seal.secret_shares,
      secret_threshold: seal.secret_threshold,
    };
    return { seal: clean, raw, nonce, ciphertext };
  } catch {
    throw internal(`the sealed keyring at ${KEYRING_PATH} is damaged`);
  }
}

/**
 * Decrypt the keyring with the root key.
 * @throws TransitError `invalid_request` when the root key does not open it.
 * @internal
 */
export function openKeyring(
  crypto: KeyringCrypto,
  rootKey: Uint8Array,
  sealed: SealedKeyring,
): Keyring {
  let plain: Uint8Array;
  try {
    plain = crypto.aeadOpen(
      'aes-gcm',
      rootKey,
      sealed.nonce,
      sealed.ciphertext,
      aadOf(sealed.seal),
    );
  } catch {
    throw invalidRequest('the root key does not open the keyring (wrong key or key shares)');
  }
  try {
    return Keyring.decode(plain);
  } catch {
    throw internal(`the keyring at ${KEYRING_PATH} is damaged`);
  } finally {
    plain.fill(0);
  }
}

/**
 * Add a term to the stored keyring (compare-and-set on the stored document,
 * retried when another node rotated at the same moment).
 * @throws TransitError `conflict` when other nodes kept winning; `internal`
 * when the store is not initialised.
 * @internal
 */
export async function rotateStoredKeyring(
  storage: StorageAdapter,
  crypto: KeyringCrypto,
  rootKey: Uint8Array,
  clock: Clock,
): Promise<Keyring> {
  for (let i = 0; i < 8; i++) {
    const doc = await readSealedKeyring(storage);
    if (!doc) throw internal(`the keyring at ${KEYRING_PATH} is missing`);
    const next = openKeyring(crypto, rootKey, doc).rotated(crypto, clock.now());
    if (
      await storage.compareAndSet(
        KEYRING_PATH,
        doc.raw,
        sealKeyring(crypto, rootKey, doc.seal, next),
      )
    ) {
      return next;
    }
  }
  throw conflict('the keyring changed concurrently; retry');
}

/** A subscription to changes of the stored keyring. @internal */
export interface KeyringWatch {
  /** Unsubscribe (in the background; failures are ignored). */
  stop(): void;
}

/**
 * Call `onChange` whenever another node changes the stored keyring, when the
 * storage offers `watch` (`undefined` otherwise). Calls do not overlap: a
 * change during a reload runs one more reload after it. Failures of
 * `onChange` are ignored (the next change retries; the barrier still reloads
 * when it meets an unknown term). `onChange` also runs once after subscribing.
 * @internal
 */
export async function watchKeyring(
  storage: StorageAdapter,
  onChange: () => Promise<void>,
): Promise<KeyringWatch | undefined> {
  if (!hasWatch(storage)) return undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = onChange()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const unsubscribe = await storage.watch(KEYRING_PATH, (key) => {
    if (key === KEYRING_PATH) run();
  });
  run(); // a change between the caller's read and the subscription
  return {
    stop() {
      stopped = true;
      unsubscribe().catch(() => undefined);
    },
  };
}
