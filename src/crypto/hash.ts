/**
 * THE Vault hash-name registry: one table from Vault's names (`sha2-256`,
 * `sha3-512`, …) to the backend's {@link HashName} and output size. Resolve a
 * name once with {@link vaultHash}; nothing below switches on the Vault name.
 *
 * Names are Vault's `keysutil.HashTypeMap` minus `none`, which is a signing-only
 * pseudo-hash (prehashed input, no digest) and handled by the signing module.
 * Which operations accept which names (the `hash` endpoint, for instance, lists
 * only SHA-2/SHA-3) is each operation's concern, not this table's.
 *
 * @module
 */
import { invalidRequest } from '../errors.js';
import type { HashName } from './backend.js';

/**
 * A hash algorithm name as Vault spells it in requests and responses.
 * @public
 */
export type VaultHashName =
  | 'sha1'
  | 'sha2-224'
  | 'sha2-256'
  | 'sha2-384'
  | 'sha2-512'
  | 'sha3-224'
  | 'sha3-256'
  | 'sha3-384'
  | 'sha3-512';

/**
 * One registry row: the backend's hash name and the digest size.
 * @public
 */
export interface VaultHash {
  /** The Vault name (the row's key). */
  readonly vaultName: VaultHashName;
  /** The name to pass to `CryptoBackend.digest` / `hmac` / `hkdf`. */
  readonly name: HashName;
  /** Digest size in bytes. */
  readonly size: number;
}

const row = (vaultName: VaultHashName, name: HashName, size: number): VaultHash =>
  Object.freeze({ vaultName, name, size });

/** The table. Order is Vault's documentation order. */
const VAULT_HASHES: Readonly<Record<VaultHashName, VaultHash>> = /* @__PURE__ */ Object.freeze({
  sha1: row('sha1', 'sha1', 20),
  'sha2-224': row('sha2-224', 'sha224', 28),
  'sha2-256': row('sha2-256', 'sha256', 32),
  'sha2-384': row('sha2-384', 'sha384', 48),
  'sha2-512': row('sha2-512', 'sha512', 64),
  'sha3-224': row('sha3-224', 'sha3-224', 28),
  'sha3-256': row('sha3-256', 'sha3-256', 32),
  'sha3-384': row('sha3-384', 'sha3-384', 48),
  'sha3-512': row('sha3-512', 'sha3-512', 64),
});

/** The table as a map: a lookup by a name from a request costs less than `Object.hasOwn`. */
const BY_NAME: ReadonlyMap<unknown, VaultHash> = /* @__PURE__ */ new Map(
  Object.entries(VAULT_HASHES),
);

/**
 * Every Vault hash name in the registry, in Vault's documentation order.
 * @public
 */
export const VAULT_HASH_NAMES: readonly VaultHashName[] = /* @__PURE__ */ Object.freeze(
  Object.keys(VAULT_HASHES) as VaultHashName[],
);

/**
 * True when `name` is a Vault hash name in the registry (exact, case-sensitive,
 * as Vault matches it).
 * @public
 */
export function isVaultHashName(name: string): name is VaultHashName {
  return BY_NAME.has(name);
}

/**
 * Resolves a Vault hash name.
 *
 * @throws TransitError `invalid_request` — `invalid hash algorithm "<name>"` for
 *   an unknown name (including `none`, which is not a digest).
 * @example
 * ```ts
 * vaultHash('sha2-256'); // { vaultName: 'sha2-256', name: 'sha256', size: 32 }
 * ```
 * @public
 */
export function vaultHash(name: string): VaultHash {
  const found = BY_NAME.get(name);
  if (!found) throw invalidRequest(`invalid hash algorithm ${JSON.stringify(String(name))}`);
  return found;
}
