/**
 * The barrier: a {@link StorageAdapter} wrapper that
 * encrypts every value written through the core, so the storage below only
 * ever holds ciphertext. Vault's `AESGCMBarrier`, on the crypto backend.
 *
 * Entry format (version 1):
 * ```
 * 0x01 ‖ term (u32 BE) ‖ nonce (12) ‖ AES-256-GCM(value) ‖ tag (16)
 * AAD = 0x01 ‖ term ‖ UTF-8(storage path)
 * ```
 * The storage path is authenticated, so an entry copied (or renamed) to another
 * path fails to decrypt; the term names the keyring key that sealed it, so the
 * keyring can rotate while old entries stay readable. Nonces are random (96
 * bits): keep well under 2^32 writes per term, which keyring rotation resets.
 *
 * What passes through unencrypted: storage paths (`list`), lock names and
 * change notifications (`lock`, `watch`). Paths carry names and ids, never
 * values; the token store keys tokens by a salted hash for that reason.
 *
 * `compareAndSet` compares **plaintexts**. Ciphertexts are randomised (a fresh
 * nonce per write), so a caller holding a value it read can never name the
 * ciphertext it came from. The barrier reads the current ciphertext, decrypts
 * it, compares it with `expected` in constant time, and then swaps on the
 * exact ciphertext it read (the adapter's atomic compare-and-set). A writer
 * on another instance that changed the entry in between changes its
 * ciphertext, so the inner swap fails and the barrier re-reads: correctness
 * across instances rests on the adapter's atomicity, as before. A concurrent
 * re-encryption of the same plaintext (a rewrap after a keyring rotation) is
 * retried rather than reported as a conflict. The price: one extra read per
 * compare-and-set.
 *
 * While sealed (no keyring), `get`, `put`, `delete`, `list` and
 * `compareAndSet` fail with `sealed`; `lock` and `watch` still pass through.
 * Paths under `core/` are the seal's own (keyring, seal configuration) and are
 * refused to callers.
 *
 * Runtime-neutral: the AEAD comes from the {@link CryptoBackend}.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { internal, invalidRequest, sealed } from '../errors.js';
import { settledWithin } from '../util/settled-within.js';
import {
  hasLock,
  hasWatch,
  type ListOptions,
  type LockHandle,
  requireStorageAdapter,
  type StorageAdapter,
} from './adapter.js';
import { checkBytes } from './kit.js';

/** Storage paths the barrier keeps for the seal (keyring, configuration). @public */
export const BARRIER_RESERVED_PREFIX = 'core/';

/**
 * The keys a barrier encrypts with: versioned terms, one active.
 * @public
 */
export interface BarrierKeyring {
  /** The term new entries are sealed with. */
  readonly activeTerm: number;
  /** The 32-byte key of `term`, or `undefined` when the keyring has no such term. */
  key(term: number): Uint8Array | undefined;
}

/** The backend primitives the barrier uses. @public */
export type BarrierCrypto = Pick<
  CryptoBackend,
  'aeadSeal' | 'aeadOpen' | 'randomBytes' | 'timingSafeEqual'
>;

const FORMAT = 0x01;
const HEADER = 5;
const NONCE = 12;
const TAG = 16;
const CAS_ATTEMPTS = 16;
const te = new TextEncoder();

/**
 * A {@link StorageAdapter} that encrypts values at rest under a keyring.
 *
 * @example
 * ```ts
 * const barrier = new Barrier(new MemoryStorage(), nobleBackend);
 * barrier.unseal(keyring, () => reloadKeyring()); // normally done by a TransitNode
 * await barrier.put('transit/policy/k', bytes); // stored as ciphertext
 * barrier.seal(); // every value operation now fails with `sealed`
 * ```
 * @public
 */
export class Barrier implements StorageAdapter {
  readonly #inner: StorageAdapter;
  readonly #crypto: BarrierCrypto;
  #keyring: BarrierKeyring | undefined;
  #reload: (() => Promise<BarrierKeyring>) | undefined;
  #reloading: Promise<BarrierKeyring> | undefined;
  /** Present when the inner adapter can lock (leader duties pass through). */
  readonly lock?: (name: string, ttlMs: number) => Promise<LockHandle | undefined>;
  /** Present when the inner adapter can watch (paths pass through, values never do). */
  readonly watch?: (
    prefix: string,
    onChange: (key: string) => void,
  ) => Promise<() => Promise<void>>;

  /**
   * @param inner - the adapter that stores the ciphertext
   * @param crypto - the backend (AES-256-GCM, CSPRNG, constant-time compare)
   * @throws TransitError `invalid_request` when either is missing or of another kind.
   */
  constructor(inner: StorageAdapter, crypto: BarrierCrypto) {
    requireStorageAdapter(inner, "Barrier: 'inner'");
    if (typeof crypto?.aeadSeal !== 'function' || typeof crypto.randomBytes !== 'function') {
      throw invalidRequest("Barrier: 'crypto' must be a crypto backend");
    }
    this.#inner = inner;
    this.#crypto = crypto;
    if (hasLock(inner)) this.lock = (name, ttlMs) => inner.lock(name, ttlMs);
    if (hasWatch(inner)) this.watch = (prefix, onChange) => inner.watch(prefix, onChange);
  }

  /** True while no keyring is loaded. */
  get sealed(): boolean {
    return this.#keyring === undefined;
  }

  /**
   * Load the keyring. `reload` is called (once at a time) when an entry names
   * a term this keyring lacks: another instance rotated the keyring.
   */
  unseal(keyring: BarrierKeyring, reload?: () => Promise<BarrierKeyring>): void {
    this.#keyring = keyring;
    this.#reload = reload;
    // A reload in flight was started for the keyring this one replaces.
    this.#reloading = undefined;
  }

  /** Writes to the inner adapter in flight (see {@link Barrier.drained}). */
  readonly #inflight = new Set<Promise<unknown>>();
  /** Seals so far: a read begun in an earlier unsealed period answers nothing. */
  #period = 0;

  /**
   * Refuse the answer of a read that began before a seal: after a seal and an
   * unseal the keyring is back, but what asked belongs to the sealed period.
   */
  #samePeriod(period: number): void {
    if (period !== this.#period || !this.#keyring) throw sealed();
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inflight.add(p);
    const done = () => this.#inflight.delete(p);
    p.then(done, done);
    return p;
  }

  /**
   * Settled once every write to the inner adapter in flight has (at most
   * `ms`): a seal waits here, after {@link Barrier.seal}, so a write that
   * passed the barrier before it lands before the seal returns, not after.
   * (Reads need no wait: one that began before a seal answers `sealed`.)
   * Answers whether anything was in flight.
   * @internal
   */
  drained(ms: number): Promise<boolean> {
    if (this.#inflight.size === 0) return Promise.resolve(false);
    return settledWithin(Promise.allSettled(this.#inflight), ms).then(() => true);
  }

  /** Drop the keyring: every value operation fails with `sealed` from now on. */
  seal(): void {
    this.#keyring = undefined;
    this.#reload = undefined;
    this.#reloading = undefined;
    this.#period++;
  }

  /** @throws TransitError `sealed`; `internal` when the entry fails authentication. */
  async get(key: string): Promise<Uint8Array | undefined> {
    this.#usable(key);
    const period = this.#period;
    const raw = await this.#inner.get(key);
    this.#samePeriod(period);
    return raw === undefined ? undefined : this.#openIn(period, key, raw);
  }

  /**
   * {@link Barrier.#open} for a call of `period`: a seal while it waits (on a
   * keyring reload) makes it `sealed`, whatever the reload answered.
   */
  async #openIn(period: number, key: string, raw: Uint8Array): Promise<Uint8Array> {
    let value: Uint8Array;
    try {
      value = await this.#open(key, raw);
    } catch (e) {
      this.#samePeriod(period);
      throw e;
    }
    this.#samePeriod(period);
    return value;
  }

  /** @throws TransitError `sealed`. */
  async put(key: string, value: Uint8Array): Promise<void> {
    this.#usable(key);
    checkBytes(value, 'value');
    await this.#track(this.#inner.put(key, this.#seal(key, value)));
  }

  /** @throws TransitError `sealed`. */
  async delete(key: string): Promise<void> {
    this.#usable(key);
    await this.#track(this.#inner.delete(key));
  }

  /**
   * Paths pass through (they are not secret), but for the reserved ones: every
   * key listed can be read through the barrier.
   * @throws TransitError `sealed`; `invalid_request` for a prefix under the reserved one.
   */
  async list(prefix: string, options?: ListOptions): Promise<string[]> {
    this.#usable(prefix);
    if (typeof prefix !== 'string' || !BARRIER_RESERVED_PREFIX.startsWith(prefix)) {
      const period = this.#period;
      const keys = await this.#inner.list(prefix, options);
      this.#samePeriod(period);
      return keys;
    }
    // The listing spans the reserved prefix: leave its keys out, and fill a
    // page from the keys after them.
    const limit = options?.limit ?? 0;
    const out: string[] = [];
    let after = options?.after;
    for (;;) {
      const period = this.#period;
      const page = await this.#inner.list(
        prefix,
        after === undefined ? options : { ...options, after },
      );
      this.#samePeriod(period);
      for (const k of page) {
        if (!(prefix + k).startsWith(BARRIER_RESERVED_PREFIX)) out.push(k);
      }
      if (limit === 0 || page.length < limit || out.length >= limit) {
        return limit === 0 ? out : out.slice(0, limit);
      }
      after = page[page.length - 1];
    }
  }

  /**
   * Compare-and-set on **decrypted** values (see the module notes).
   * @throws TransitError `sealed`; `internal` when the current entry fails authentication.
   */
  async compareAndSet(
    key: string,
    expected: Uint8Array | undefined,
    next: Uint8Array | undefined,
  ): Promise<boolean> {
    this.#usable(key);
    if (expected !== undefined) checkBytes(expected, 'expected');
    if (next !== undefined) checkBytes(next, 'next');
    const sealedNext = next === undefined ? undefined : this.#seal(key, next);
    // One period for the whole call: a retry after a seal and an unseal does
    // not write what the sealed period asked for.
    const period = this.#period;
    for (let i = 0; i < CAS_ATTEMPTS; i++) {
      const raw = await this.#inner.get(key);
      this.#samePeriod(period);
      if (raw === undefined) {
        if (expected !== undefined) return false;
      } else {
        if (expected === undefined) return false;
        const current = await this.#openIn(period, key, raw);
        if (!this.#crypto.timingSafeEqual(current, expected)) return false;
      }
      this.#samePeriod(period);
      if (await this.#track(this.#inner.compareAndSet(key, raw, sealedNext))) return true;
      // The ciphertext changed since the read: look again (it may hold the same value).
    }
    return false;
  }

  /** Close the inner adapter. */
  async close(): Promise<void> {
    await this.#inner.close?.();
  }

  #usable(key: string): void {
    if (typeof key === 'string' && key.startsWith(BARRIER_RESERVED_PREFIX)) {
      throw invalidRequest(`storage paths under ${BARRIER_RESERVED_PREFIX} are reserved`);
    }
    if (!this.#keyring) throw sealed();
  }

  #seal(key: string, value: Uint8Array): Uint8Array {
    const keyring = this.#keyring;
    if (!keyring) throw sealed();
    const term = keyring.activeTerm;
    const k = keyring.key(term);
    if (!k) throw internal('barrier: the keyring has no active key');
    const header = headerOf(term);
    const nonce = this.#crypto.randomBytes(NONCE);
    const ct = this.#crypto.aeadSeal('aes-gcm', k, nonce, value, aadOf(header, key));
    const out = new Uint8Array(HEADER + NONCE + ct.length);
    out.set(header, 0);
    out.set(nonce, HEADER);
    out.set(ct, HEADER + NONCE);
    return out;
  }

  async #open(key: string, raw: Uint8Array): Promise<Uint8Array> {
    if (raw.length < HEADER + NONCE + TAG || raw[0] !== FORMAT) {
      throw internal(`barrier: the entry at ${key} is not a barrier entry`);
    }
    const term = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getUint32(1);
    const k = await this.#keyFor(term);
    if (!k) throw internal(`barrier: the entry at ${key} names an unknown keyring term`);
    try {
      return this.#crypto.aeadOpen(
        'aes-gcm',
        k,
        raw.subarray(HEADER, HEADER + NONCE),
        raw.subarray(HEADER + NONCE),
        aadOf(raw.subarray(0, HEADER), key),
      );
    } catch {
      throw internal(`barrier: the entry at ${key} failed authentication`);
    }
  }

  /** The key of `term`, reloading the keyring once when it lacks the term. */
  async #keyFor(term: number): Promise<Uint8Array | undefined> {
    const keyring = this.#keyring;
    if (!keyring) throw sealed();
    const k = keyring.key(term);
    if (k || !this.#reload) return k;
    const period = this.#period;
    this.#reloading ??= this.#reload().finally(() => {
      this.#reloading = undefined;
    });
    const fresh = await this.#reloading;
    const now = this.#keyring;
    // A reload begun before a seal installs nothing in the next period.
    if (!now || period !== this.#period) throw sealed();
    // A keyring installed while the reload ran (unseal with a newer one) is
    // not replaced by an older reload: new writes stay on the newest term.
    if (fresh.activeTerm >= now.activeTerm) this.#keyring = fresh;
    return fresh.key(term) ?? now.key(term);
  }
}

function headerOf(term: number): Uint8Array {
  const h = new Uint8Array(HEADER);
  h[0] = FORMAT;
  new DataView(h.buffer).setUint32(1, term);
  return h;
}

function aadOf(header: Uint8Array, key: string): Uint8Array {
  const path = te.encode(key);
  const aad = new Uint8Array(header.length + path.length);
  aad.set(header, 0);
  aad.set(path, header.length);
  return aad;
}
