/**
 * The keys a {@link TransitNode} holds while unsealed: its root key, the
 * open keyring the barrier encrypts with, and the watch that loads a keyring
 * another node rotated. Opened by an unseal, dropped (wiped) by a seal; the
 * node decides when, this module only what.
 * Runtime-neutral.
 * @module
 */

import { type Clock, rfc3339 } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { sealed } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { Barrier } from '../storage/barrier.js';
import {
  type Keyring,
  type KeyringWatch,
  openKeyring,
  readSealedKeyring,
  rotateStoredKeyring,
  type SealedKeyring,
  watchKeyring,
} from './keyring.js';

/** What the keys need from their node. */
export interface NodeKeysDeps {
  readonly storage: StorageAdapter;
  readonly backend: CryptoBackend;
  readonly barrier: Barrier;
  readonly clock: Clock;
  /** Runs `fn` after the node's other state changes (the node's one-at-a-time chain). */
  readonly serial: (fn: () => Promise<void>) => Promise<void>;
}

/** A node's root key and keyring while unsealed (see the module). @internal */
export class NodeKeys {
  readonly #d: NodeKeysDeps;
  #rootKey: Uint8Array | undefined;
  #keyring: Keyring | undefined;
  #watch: KeyringWatch | undefined;

  constructor(deps: NodeKeysDeps) {
    this.#d = deps;
  }

  /**
   * Open the keyring with `rootKey` (which this then owns, and wipes on
   * failure or {@link NodeKeys.drop}), unseal the barrier with it, and watch
   * for another node's rotation (best effort: without a watch the barrier
   * still reloads when it meets an unknown term).
   * @throws TransitError `invalid_request` when the root key does not open the keyring.
   */
  async open(rootKey: Uint8Array, doc: SealedKeyring): Promise<void> {
    let keyring: Keyring;
    try {
      keyring = openKeyring(this.#d.backend, rootKey, doc);
    } catch (e) {
      rootKey.fill(0);
      throw e;
    }
    this.#rootKey = rootKey;
    this.#use(keyring);
    this.#watch = await watchKeyring(this.#d.storage, () =>
      this.#d.serial(() => this.#reload()),
    ).catch(() => undefined);
  }

  /**
   * `sys/rotate`: store a new keyring term and use it at once.
   * @throws TransitError `sealed` when no keys are open; `conflict` when another node kept rotating.
   */
  async rotate(): Promise<number> {
    const rootKey = this.#rootKey;
    if (!rootKey) throw sealed();
    const next = await rotateStoredKeyring(
      this.#d.storage,
      this.#d.backend,
      rootKey,
      this.#d.clock,
    );
    this.#use(next);
    return next.activeTerm;
  }

  /** `sys/key-status`: the active term and its install time. @throws TransitError `sealed`. */
  status(): { term: number; install_time: string } {
    if (!this.#keyring) throw sealed();
    const term = this.#keyring.activeTerm;
    return { term, install_time: rfc3339(this.#keyring.createdAt(term) ?? 0) };
  }

  /** Stop the watch, seal the barrier and wipe the keyring and root key. */
  drop(): void {
    this.#watch?.stop();
    this.#watch = undefined;
    this.#d.barrier.seal();
    this.#keyring?.wipe();
    this.#rootKey?.fill(0);
    this.#keyring = undefined;
    this.#rootKey = undefined;
  }

  #use(keyring: Keyring): void {
    this.#keyring = keyring;
    this.#d.barrier.unseal(keyring, async () => {
      const rootKey = this.#rootKey;
      const doc = await readSealedKeyring(this.#d.storage);
      if (!rootKey || !doc) throw sealed();
      const fresh = openKeyring(this.#d.backend, rootKey, doc);
      this.#keyring = fresh;
      return fresh;
    });
  }

  /** Another node rotated the keyring: new writes here use the new term at once. */
  async #reload(): Promise<void> {
    const rootKey = this.#rootKey;
    if (!rootKey) return;
    const doc = await readSealedKeyring(this.#d.storage);
    if (!doc || this.#rootKey !== rootKey) return;
    const fresh = openKeyring(this.#d.backend, rootKey, doc);
    if (fresh.activeTerm > (this.#keyring?.activeTerm ?? 0)) this.#use(fresh);
  }
}
