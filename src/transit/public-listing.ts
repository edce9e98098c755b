/**
 * The `keys` of a key pair's read body (./read-body.ts): each version as
 * `{ name, public_key, creation_time (RFC 3339), certificate_chain }`. ECDSA
 * shows the stored PKIX PEM, Ed25519 base64 (derived keys: `""` unless a
 * `context` is given, then the derived key's), RSA a fresh PKIX PEM; both
 * PEMs end with a newline. Its own module, loaded with the first key pair's
 * read body, so that symmetric use (the edge build) does not carry it.
 * @module
 */
import { rfc3339 } from '../clock.js';
import { chainToPem } from '../crypto/pki/pem.js';
import type { KeyTypeInfo } from '../keys/key-types.js';
import type { KeyVersion } from '../keys/policy.js';
import { type LoadedKey, MAX_AGE_MS, type PolicyStore } from '../keys/policy-store.js';
import type { Snapshot } from './creation-times.js';
import type { Engine } from './engine.js';
import { type KeptListing, KeptListings } from './kept-listings.js';
import type { AsymmetricKeyVersionInfo } from './types.js';

/** One asymmetric version as the read body shows it. */
function publicEntry(
  info: KeyTypeInfo,
  v: KeyVersion,
  public_key: string,
): AsymmetricKeyVersionInfo {
  const zero = v.time === '' || v.time.startsWith('0001-01-01');
  return {
    name: info.publicKeyName ?? info.name,
    public_key,
    creation_time: zero ? rfc3339(v.creation_time * 1000) : v.time,
    certificate_chain: chainToPem(v.certificate_chain ?? []),
  };
}

type PublicEntry = number | AsymmetricKeyVersionInfo;

/**
 * Each version's entry in a read body without a derivation context, by
 * version object, with the key type and `derived` flag it was made for. A
 * version object never changes (set-certificate and import_version make a new
 * one), and its entry depends only on it, the type and the flag, which never
 * change for a key; so a version's public key is formatted (RSA: exported)
 * once. Only cached version objects hold entries (a `WeakMap`).
 */
const entries = new WeakMap<KeyVersion, { type: string; derived: boolean; entry: PublicEntry }>();

/**
 * A key's listing without a context, kept so that rotate does not grow with
 * the number of versions (as ./creation-times.ts for symmetric keys): each
 * reply that extends it gets a {@link Snapshot} that copies the entries when
 * `keys` is first read. Unlike a creation time, an entry can change under one
 * uid (set-certificate and import_version rewrite a version in place), so a
 * kept listing is used only while
 * - the hot versions in the key's document are the objects it was built from
 *   (a rewrite, or a document reloaded after another instance's write, puts
 *   new ones there);
 * - every archived version logged as changed since its stamp
 *   ({@link PolicyStore.archiveChanges}: a rewrite here, or one heard from
 *   another instance, including this instance's own archive writes echoed
 *   by a watching storage) still gives the same entry when read again; and
 * - it is younger than {@link MAX_AGE_MS}, the key cache's own backstop for
 *   lost notifications.
 * Anything else rebuilds it. Entries are only appended past `to`, and a
 * rebuild makes a new listing, so a snapshot's entries never change.
 */
interface Kept extends KeptListing {
  readonly type: string;
  readonly derived: boolean;
  /** The archive stamp up to which its entries are known to be right. */
  stamp: number;
  /** When it was built (engine clock, ms). */
  readonly at: number;
  /** Version `from + i` at index `i`; never handed out (replies get copies). */
  readonly entries: PublicEntry[];
}

/** The kept listings of each engine's key store. */
const keptByStore = new WeakMap<PolicyStore, KeptListings<Kept>>();

/**
 * What the kept listings of one store may hold, in bytes (estimated by
 * {@link weight}): entries differ a hundredfold in size (an Ed25519 key's
 * ≈ 140 B, an ML-DSA-87 PEM's ≈ 3.6 KB, plus any certificate chain), so they
 * are bounded by bytes, not versions — ≈ 120,000 Ed25519 versions, ≈ 4,600
 * ML-DSA-87 ones. A key alone past it is not kept (its read body is built
 * each time, as before).
 */
const KEPT_BYTES = 16 * 1024 * 1024;

/** About what `list`'s entries hold, in bytes. */
function weight(list: readonly PublicEntry[]): number {
  let bytes = 0;
  for (const entry of list) {
    bytes +=
      typeof entry === 'number'
        ? 8
        : 96 +
          entry.public_key.length +
          entry.creation_time.length +
          entry.certificate_chain.length;
  }
  return bytes;
}

const NO_CONTEXT = new Uint8Array(0);

/**
 * The asymmetric read body's `keys`: each version's public key (a time where
 * it has none), as an object or as a {@link Snapshot} that makes one.
 * @internal
 */
export async function publicListing(
  e: Engine,
  key: LoadedKey,
  info: KeyTypeInfo,
  from: number,
  context: Uint8Array,
): Promise<Record<number, PublicEntry> | Snapshot<PublicEntry>> {
  const p = key.doc.policy;
  const to = p.latest_version;
  // A derived key's public keys for a context: computed each time, never kept.
  if (context.length > 0) return copyOf(await build(e, key, info, from, to, context), from, to);
  let kept = keptByStore.get(e.store);
  if (!kept) {
    kept = new KeptListings(KEPT_BYTES);
    keptByStore.set(e.store, kept);
  }
  const name = p.name;
  const now = kept.get(name);
  if (now && (await usable(e, key, info, now, from)) && kept.get(name) === now) {
    if (now.to === to) {
      kept.use(name);
      return snapshot(now, to);
    }
    const was = now.to;
    const stamp = now.stamp;
    const added = await build(e, key, info, was + 1, to, NO_CONTEXT);
    // Extended only if nothing changed meanwhile (the awaits let other calls run). Both
    // stamps: another call may have moved `now.stamp` past a rewrite of a version in
    // `added` (it re-checks only versions up to `was`).
    if (
      kept.get(name) === now &&
      now.to === was &&
      now.stamp === stamp &&
      stamp === e.store.archiveChanges.stamp
    ) {
      for (const entry of added) now.entries.push(entry);
      kept.extended(name, now, to, weight(added));
      return snapshot(now, to);
    }
  }
  const stamp = e.store.archiveChanges.stamp;
  const at = e.clock.now();
  const built = await build(e, key, info, from, to, NO_CONTEXT);
  const listing: Kept = {
    uid: key.doc.uid,
    from,
    to,
    type: p.type,
    derived: p.derived,
    stamp,
    at,
    entries: built,
  };
  // Kept only if no version may have been rewritten while it was built.
  if (stamp === e.store.archiveChanges.stamp && kept.replace(name, listing, weight(built))) {
    return snapshot(listing, to);
  }
  return copyOf(built, from, to);
}

/**
 * Whether `kept` is still right for `key` from `from` on (see {@link Kept}):
 * checked at once, but for the archived versions logged as changed since its
 * stamp, which are read again and compared (one per rotate where a watching
 * storage echoes the archive write); then its stamp moves on.
 */
async function usable(
  e: Engine,
  key: LoadedKey,
  info: KeyTypeInfo,
  kept: Kept,
  from: number,
): Promise<boolean> {
  const p = key.doc.policy;
  if (kept.uid !== key.doc.uid || kept.from !== from || kept.to > p.latest_version) return false;
  if (kept.type !== p.type || kept.derived !== p.derived) return false;
  const age = e.clock.now() - kept.at;
  if (!(age >= 0 && age < MAX_AGE_MS)) return false;
  for (const [n, ver] of key.doc.versions) {
    if (n < from || n > kept.to) continue;
    if (entries.get(ver)?.entry !== kept.entries[n - from]) return false;
  }
  const log = e.store.archiveChanges;
  const stamp = log.stamp;
  if (kept.stamp === stamp) return true;
  const changes = log.since(kept.stamp);
  if (!changes) return false;
  for (const { name, version: v } of changes) {
    if (name !== p.name || v < from || v > kept.to) continue;
    const [entry] = await build(e, key, info, v, v, NO_CONTEXT);
    if (!sameEntry(entry as PublicEntry, kept.entries[v - from] as PublicEntry)) return false;
  }
  // Checked up to `stamp`; a change logged during the reads above is checked next time.
  if (kept.stamp < stamp) kept.stamp = stamp;
  return true;
}

/** Whether two entries show the same thing (every field the same string). */
function sameEntry(a: PublicEntry, b: PublicEntry): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const fields = Object.keys(a) as (keyof AsymmetricKeyVersionInfo)[];
  return fields.length === Object.keys(b).length && fields.every((field) => a[field] === b[field]);
}

/** Versions `from..to` of `listing`, copied when called. */
function snapshot(listing: Kept, to: number): Snapshot<PublicEntry> {
  return () => copyOf(listing.entries, listing.from, to);
}

/** `{ [version]: entry }` for versions `from..to`, each entry its own copy (the caller may change them). */
function copyOf(
  list: readonly PublicEntry[],
  from: number,
  to: number,
): Record<number, PublicEntry> {
  const keys: Record<number, PublicEntry> = {};
  for (let v = from; v <= to; v++) {
    const entry = list[v - from] as PublicEntry;
    keys[v] = typeof entry === 'number' ? entry : { ...entry };
  }
  return keys;
}

/** The entries of versions `from..to` (version `from + i` at index `i`). */
async function build(
  e: Engine,
  key: LoadedKey,
  info: KeyTypeInfo,
  from: number,
  to: number,
  context: Uint8Array,
): Promise<PublicEntry[]> {
  const p = key.doc.policy;
  const list: PublicEntry[] = [];
  const archived = e.store.archivedVersions(key);
  const reuse = context.length === 0;
  for (let v = from; v <= to; v++) {
    const ver = key.doc.versions.get(v) ?? archived?.get(v) ?? (await e.store.version(key, v));
    const known = reuse ? entries.get(ver) : undefined;
    let entry: PublicEntry;
    if (known && known.type === p.type && known.derived === p.derived) entry = known.entry;
    else {
      const pub = info.family.readBodyPublicKey(e.backend, p, ver, context);
      entry = pub ? publicEntry(info, ver, await pub) : ver.creation_time;
      if (reuse) entries.set(ver, { type: p.type, derived: p.derived, entry });
    }
    list.push(entry);
  }
  return list;
}
