/**
 * Read-modify-write of one key document (policy-store.ts `mutate`): rotate,
 * configuration, trim, import and every other change of an existing key, by
 * compare-and-set against the stored bytes, retried when another writer won
 * (./store-writes.ts has the rest of the write rules). Loaded with the first
 * such write: an application that only creates and uses keys (the edge
 * build's encrypt, decrypt and HMAC) does not carry it.
 * @module
 */
import { conflict } from '../errors.js';
import { keyspace } from '../storage/keyspace.js';
import type { ArchiveStore } from './archive-store.js';
import { encodeDocument, type KeyDocument } from './policy-codec.js';
import type { LoadedKey, Mutation } from './policy-store.js';
import type { WholeKeyOps } from './store-admin.js';
import { CAS_RETRIES } from './store-writes.js';

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
    let stored: LoadedKey | undefined;
    try {
      const next = await prepare(archive, current, m, written);
      if (next) {
        const raw = encodeDocument(next);
        const remember = ops.stamp(name);
        if (await ops.storage.compareAndSet(keyspace.policy(name), current.raw, raw)) {
          stored = { doc: next, raw };
          remember(stored);
        }
      }
    } catch (e) {
      await archive.undoRewrites(name, uid, m, written).catch(() => {});
      await ops.cleanUp(name, uid, written);
      throw e;
    }
    if (stored) {
      // The write took effect: a failed clean-up of trimmed entries is not
      // reported as its failure (a client would retry what it did); the
      // key's next write sweeps them (ArchiveStore.dropTrimmed).
      await archive.dropTrimmed(uid, current.doc.policy, stored.doc.policy).catch(() => undefined);
      return stored;
    }
    // Lost to another writer: what this attempt rewrote in place goes back first.
    await archive.undoRewrites(name, uid, m, written);
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
  const versions = await archive.split(m.policy, uid, all, written, view, m.base);
  return versions && { uid, policy: m.policy, versions };
}
