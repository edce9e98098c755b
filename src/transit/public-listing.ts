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
import type { LoadedKey } from '../keys/policy-store.js';
import type { Engine } from './engine.js';
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
 * change for a key; so listing 1,000 versions is 1,000 lookups, not 1,000
 * public keys formatted (RSA: exported) and awaited — rotate of an asymmetric
 * key stays O(1) in its versions but for this loop. Only cached version
 * objects hold entries (a `WeakMap`).
 */
const entries = new WeakMap<KeyVersion, { type: string; derived: boolean; entry: PublicEntry }>();

/**
 * The asymmetric read body's `keys`: each version's public key (a time where
 * it has none).
 * @internal
 */
export async function publicListing(
  e: Engine,
  key: LoadedKey,
  info: KeyTypeInfo,
  from: number,
  context: Uint8Array,
): Promise<Record<number, PublicEntry>> {
  const p = key.doc.policy;
  const keys: Record<number, PublicEntry> = {};
  const archived = e.store.archivedVersions(key);
  const reuse = context.length === 0;
  for (let v = from; v <= p.latest_version; v++) {
    const ver = key.doc.versions.get(v) ?? archived?.get(v) ?? (await e.store.version(key, v));
    const known = reuse ? entries.get(ver) : undefined;
    let entry: PublicEntry;
    if (known && known.type === p.type && known.derived === p.derived) entry = known.entry;
    else {
      const pub = info.family.readBodyPublicKey(e.backend, p, ver, context);
      entry = pub ? publicEntry(info, ver, await pub) : ver.creation_time;
      if (reuse) entries.set(ver, { type: p.type, derived: p.derived, entry });
    }
    // Each reply gets its own entry objects (the caller may change them).
    keys[v] = typeof entry === 'number' ? entry : { ...entry };
  }
  return keys;
}
