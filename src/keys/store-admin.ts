/**
 * The key store's administrative operations (policy-store.ts): storing a
 * restored key in place of whatever the name holds, deleting a key with its
 * archive, and listing key names. All are rare next to encrypt and decrypt,
 * so they load on first use and stay out of a bundle that only does those.
 * The writes run under the key's lock, which the store takes.
 * @module
 */
import { conflict, invalidRequest } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { keyspace } from '../storage/keyspace.js';
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
  /** Cache a written key under the invalidation stamp taken before the write. */
  stamp(name: string): (key: LoadedKey) => void;
  forget(name: string): void;
  cleanUp(name: string, uid: string, written: readonly number[]): Promise<void>;
  newUid(): string;
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
      if (current) await ops.archive.deleteAll(name, current.doc.uid);
      return stored;
    }
    await ops.archive.deleteAll(name, uid);
  }
  throw tooMany(name);
}

/** Delete a key and its archive. Returns false when it did not exist. @internal */
export async function deleteKey(
  ops: WholeKeyOps,
  name: string,
  check: (key: LoadedKey) => void,
): Promise<boolean> {
  for (let attempt = 0; attempt < ops.retries; attempt++) {
    const current = await ops.load(name);
    if (!current) return false;
    check(current);
    if (await ops.storage.compareAndSet(keyspace.policy(name), current.raw, undefined)) {
      ops.forget(name);
      await ops.archive.deleteAll(name, current.doc.uid);
      return true;
    }
  }
  throw tooMany(name);
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
