/**
 * The key store's writes of one key document (policy-store.ts): creating a
 * key, and read-modify-write by compare-and-set against the stored bytes,
 * retried with a growing random pause when another writer won, so that
 * concurrent writers (other processes on the same storage) never lose an
 * update. Versions leaving the hot window are archived *before* the document
 * that drops them is written (./archive-store.ts), and the archive entries of
 * a write that failed or lost are deleted again.
 *
 * The store takes the key's lock and hands over its state ({@link WholeKeyOps},
 * as to ./store-admin.ts); the reads and the parsed-key cache stay there.
 * @module
 */
import { conflict } from '../errors.js';
import { keyspace } from '../storage/keyspace.js';
import type { ArchiveStore, Rewrites } from './archive-store.js';
import type { KeyPolicy, KeyVersion } from './policy.js';
import { encodeDocument, type KeyDocument } from './policy-codec.js';
import type { LoadedKey, Mutation } from './policy-store.js';
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

/**
 * Read-modify-write one key, starting from `current` (as the store last
 * loaded it), with compare-and-set against concurrent writers (retried on
 * conflict). `fn` must be pure apart from generating material; it may run
 * more than once. Returning `undefined` from `fn` means "no change" (nothing
 * is written).
 * @returns the stored key, or `undefined` if the key does not exist.
 * @internal
 */
export async function mutateKey(
  ops: WholeKeyOps,
  name: string,
  current: LoadedKey | undefined,
  fn: (key: LoadedKey) => Mutation | undefined | Promise<Mutation | undefined>,
): Promise<LoadedKey | undefined> {
  const { archive } = ops;
  for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
    if (!current) return undefined;
    const m = await fn(current);
    if (!m) return current;
    const { uid } = current.doc;
    const written: number[] = [];
    const rewrites: Rewrites = new Map();
    let stored: LoadedKey | undefined;
    try {
      const next = await prepare(archive, current, m, written, rewrites);
      if (next) {
        const raw = encodeDocument(next);
        const remember = ops.stamp(name);
        if (await ops.storage.compareAndSet(keyspace.policy(name), current.raw, raw)) {
          stored = { doc: next, raw };
          remember(stored);
        }
      }
    } catch (e) {
      await archive.undoRewrites(name, uid, rewrites).catch(() => {});
      await ops.cleanUp(name, uid, written);
      throw e;
    }
    if (stored) {
      await archive.dropTrimmed(uid, current.doc.policy, stored.doc.policy);
      return stored;
    }
    // Lost to another writer: what this attempt rewrote in place goes back first.
    await archive.undoRewrites(name, uid, rewrites);
    await ops.pause(attempt);
    current = await ops.load(name);
    await archive.dropUncommitted(uid, written, current?.doc, name);
  }
  throw conflict(`too many concurrent updates to key ${name}; retry`);
}

/**
 * Build the next document: add versions, archive those leaving the hot
 * window (./archive-store.ts); `undefined` when `current` proved behind
 * storage.
 */
async function prepare(
  archive: ArchiveStore,
  current: LoadedKey,
  m: Mutation,
  written: number[],
  rewrites: Rewrites,
): Promise<KeyDocument | undefined> {
  const { uid, versions: hot } = current.doc;
  const all = new Map(hot);
  for (const [n, v] of m.add ?? []) {
    // A version rewritten in place (set-certificate, import_version): a read of
    // its old bytes in flight must not be cached, nor a listing built from it kept.
    if (n <= current.doc.policy.latest_version) archive.log.changed(m.policy.name, n);
    all.set(n, v);
  }
  const view = { raw: current.raw, hot };
  const versions = await archive.split(m.policy, uid, all, written, view, m.base, rewrites);
  return versions && { uid, policy: m.policy, versions };
}
