/**
 * The key store's writes of one key document (policy-store.ts): creating a
 * key here, and read-modify-write (./store-mutate.ts, loaded with the first
 * one) by compare-and-set against the stored bytes, retried with a growing
 * random pause when another writer won, so that concurrent writers (other
 * processes on the same storage) never lose an update. Versions leaving the hot window are archived *before* the document
 * that drops them is written (./archive-store.ts), and the archive entries of
 * a write that failed or lost are deleted again.
 *
 * The store takes the key's lock and hands over its state ({@link WholeKeyOps},
 * as to ./store-admin.ts); the reads and the parsed-key cache stay there.
 * @module
 */
import { conflict } from '../errors.js';
import { keyspace } from '../storage/keyspace.js';
import type { KeyPolicy, KeyVersion } from './policy.js';
import { encodeDocument, type KeyDocument } from './policy-codec.js';
import type { LoadedKey } from './policy-store.js';
import type { WholeKeyOps } from './store-admin.js';

/**
 * Attempts at a key's compare-and-set before `conflict`. 16 lost 3–4 of 80
 * rotates when sixteen instances rotated one key on one file store on a
 * loaded machine (CI beside a user-clone run); 32, as the token store's, with
 * the pause capped at 256 ms (../util/contention.ts), waits ≈ 3 s longer at
 * most before it gives up.
 * @internal
 */
export const CAS_RETRIES = 32;

/**
 * Create a key unless the name exists. Returns the stored key and whether it was created.
 * @internal
 */
export async function createKey(
  ops: WholeKeyOps,
  policy: KeyPolicy,
  versions: ReadonlyMap<number, KeyVersion>,
): Promise<{ key: LoadedKey; created: boolean }> {
  const { name } = policy;
  const doc: KeyDocument = { uid: ops.newUid(), policy, versions: new Map(versions) };
  const raw = encodeDocument(doc);
  const remember = ops.stamp(name);
  if (await ops.storage.compareAndSet(keyspace.policy(name), undefined, raw)) {
    const key = { doc, raw };
    remember(key);
    return { key, created: true };
  }
  const existing = await ops.load(name);
  if (!existing) throw conflict(`key ${name} was deleted while being created; retry`);
  return { key: existing, created: false };
}
