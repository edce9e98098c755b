/**
 * Shared set-up of the lease tests: a {@link FakeClock}, a storage on it, a
 * manager with a recording revoker, and a storage wrapper that "crashes"
 * (every call after `freeze()` fails) to simulate a process dying mid-way.
 * @module
 */

import { expect } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import type { LeaseManagerOptions, RevokableLease } from '../../src/leases/types.js';
import type { ListOptions, StorageAdapter } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** A manager on a fresh MemoryStorage; `revoked` records what the `db/` revoker saw. */
export function setup(options: Partial<LeaseManagerOptions> = {}) {
  const clock = (options.clock as FakeClock | undefined) ?? new FakeClock();
  const storage = options.storage ?? new MemoryStorage({ clock });
  const revoked: RevokableLease[] = [];
  const leases = new LeaseManager({ revokeTimeoutMs: 50, ...options, storage, clock });
  leases.registerRevoker('db/', (lease) => {
    revoked.push(lease);
  });
  return { clock, storage, leases, revoked };
}

/** Keys under `prefix` in `storage` (all of them). */
export const keysUnder = (storage: StorageAdapter, prefix: string): Promise<string[]> =>
  storage.list(prefix);

/** A pass-through storage that fails every call after {@link CrashableStorage.freeze}. */
export class CrashableStorage implements StorageAdapter {
  #frozen = false;
  constructor(readonly inner: StorageAdapter) {}
  freeze(): void {
    this.#frozen = true;
  }
  #check(): void {
    if (this.#frozen) throw new Error('process crashed');
  }
  async get(key: string) {
    this.#check();
    return this.inner.get(key);
  }
  async put(key: string, value: Uint8Array) {
    this.#check();
    return this.inner.put(key, value);
  }
  async delete(key: string) {
    this.#check();
    return this.inner.delete(key);
  }
  async list(prefix: string, options?: ListOptions) {
    this.#check();
    return this.inner.list(prefix, options);
  }
  async compareAndSet(key: string, expected: Uint8Array | undefined, next: Uint8Array | undefined) {
    this.#check();
    return this.inner.compareAndSet(key, expected, next);
  }
}

/** The TransitError `p` rejects with (failing the test when it resolves or throws another). */
export async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTransitError(err), String(err)).toBe(true);
  return err as { code: string; message: string };
}
