/**
 * The key store's administrative operations (policy-store.ts): storing a
 * restored key in place of whatever the name holds, deleting a key with its
 * archive, and listing key names. All are rare next to encrypt and decrypt,
 * so they load on first use and stay out of a bundle that only does those.
 * The writes run under the key's lock, which the store takes.
 * @module
 */
import { fromUtf8, utf8 } from '../encoding.js';
import { conflict, invalidRequest } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace, purgeKeyspace } from '../storage/keyspace.js';
import type { ArchiveStore } from './archive-store.js';
import { isInternalKeyName } from './names.js';
import type { KeyPolicy, KeyVersion } from './policy.js';
import { encodeDocument, type KeyDocument } from './policy-codec.js';
import type { LoadedKey } from './policy-store.js';

/** What these writes need of the store (its private state, handed over). @internal */
export interface WholeKeyOps {
  readonly storage: StorageAdapter;
  readonly archive: ArchiveStore;
  readonly retries: number;
  load(name: string): Promise<LoadedKey | undefined>;
  /**
   * Cache a written key under the invalidation stamp taken before the write
   * (and count the write as a change: loads begun before it cache only as stale).
   */
  stamp(name: string): (key: LoadedKey) => void;
  forget(name: string): void;
  cleanUp(name: string, uid: string, written: readonly number[]): Promise<void>;
  newUid(): string;
  /** After a lost compare-and-set: a random pause, growing with the attempt. */
  pause(attempt: number): Promise<void>;
}

const tooMany = (name: string) => conflict(`too many concurrent updates to key ${name}; retry`);

/**
 * Store a whole key (restore from backup): refused when the name exists
 * unless `force`, in which case the old incarnation and its archive are replaced.
 * @internal
 */
export async function replaceKey(
  ops: WholeKeyOps,
  policy: KeyPolicy,
  versions: ReadonlyMap<number, KeyVersion>,
  force: boolean,
): Promise<LoadedKey> {
  const { name } = policy;
  for (let attempt = 0; attempt < ops.retries; attempt++) {
    const current = await ops.load(name);
    if (current && !force) throw invalidRequest(`key "${name}" already exists`);
    const uid = ops.newUid();
    const written: number[] = [];
    let stored: LoadedKey | undefined;
    try {
      // The incarnation replaced: noted before its document goes (see deleteKey).
      if (current) await notePurge(ops, name, current.doc.uid);
      const hot = await ops.archive.split(policy, uid, versions, written);
      const doc: KeyDocument = { uid, policy, versions: hot as KeyDocument['versions'] };
      const raw = encodeDocument(doc);
      const remember = ops.stamp(name);
      if (await ops.storage.compareAndSet(keyspace.policy(name), current?.raw, raw)) {
        stored = { doc, raw };
        remember(stored);
      }
    } catch (e) {
      await ops.cleanUp(name, uid, written);
      throw e;
    }
    if (stored) {
      if (current) await purgeIncarnation(ops, name, current.doc.uid);
      return stored;
    }
    await ops.archive.deleteAll(name, uid);
    await ops.pause(attempt);
  }
  throw tooMany(name);
}

/**
 * Delete a key and its archive. Returns false when it did not exist.
 *
 * The document goes first (the key is then deleted for every instance), its
 * archive entries after it; storage has no transaction across the two. So
 * the incarnation is noted as pending purge before its document goes, and
 * the note removed once its archive is gone: a storage failure in between
 * fails the call, and any later delete (a retry answers "not found") purges
 * what the note names. A note whose incarnation is still the stored one
 * (its delete never committed) is left alone.
 * @internal
 */
export async function deleteKey(
  ops: WholeKeyOps,
  name: string,
  check: (key: LoadedKey) => void,
): Promise<boolean> {
  for (let attempt = 0; attempt < ops.retries; attempt++) {
    const current = await ops.load(name);
    if (!current) {
      await purgePending(ops);
      return false;
    }
    check(current);
    const { uid } = current.doc;
    await notePurge(ops, name, uid);
    if (await ops.storage.compareAndSet(keyspace.policy(name), current.raw, undefined)) {
      ops.forget(name);
      await purgeIncarnation(ops, name, uid);
      await purgePending(ops);
      return true;
    }
    await ops.pause(attempt);
  }
  throw tooMany(name);
}

/** Note an incarnation as pending purge, before its document is deleted or replaced. */
const notePurge = (ops: WholeKeyOps, name: string, uid: string): Promise<void> =>
  ops.storage.put(purgeKeyspace.entry(uid), utf8(name));

/** Delete one incarnation's archive, then its note. */
async function purgeIncarnation(ops: WholeKeyOps, name: string, uid: string): Promise<void> {
  await ops.archive.deleteAll(name, uid);
  await ops.storage.delete(purgeKeyspace.entry(uid));
}

/**
 * Finish the purges an earlier delete or replace left noted (its archive
 * deletion failed), skipping incarnations still stored. Best effort: a
 * failure here leaves the notes for the next delete.
 */
async function purgePending(ops: WholeKeyOps): Promise<void> {
  try {
    let after = '';
    for (;;) {
      const notes = await ops.storage.list(purgeKeyspace.prefix, { after, limit: 100 });
      for (const uid of notes) {
        const raw = await ops.storage.get(purgeKeyspace.entry(uid));
        if (!raw) continue;
        const name = fromUtf8(raw);
        if ((await ops.load(name))?.doc.uid === uid) continue;
        await purgeIncarnation(ops, name, uid);
      }
      if (notes.length < 100) return;
      after = notes[notes.length - 1] as string;
    }
  } catch {
    // The notes stay for the next delete.
  }
}

/** User key names, sorted, paginated; internal keys (names with `/`) are skipped. @internal */
export async function listKeyNames(
  storage: StorageAdapter,
  after: string,
  limit: number,
): Promise<string[]> {
  const out: string[] = [];
  let cursor = after;
  for (;;) {
    const page = await storage.list(keyspace.policyPrefix, { after: cursor, limit });
    for (const name of page) if (!isInternalKeyName(name)) out.push(name);
    if (limit === 0 || page.length < limit || out.length >= limit) break;
    cursor = page[page.length - 1] as string;
  }
  return limit === 0 ? out : out.slice(0, limit);
}
