/**
 * The audit table in storage (through the barrier, so encrypted at rest, the
 * salts too): one JSON document at `sys/audit/table` holding every enabled
 * device (type, description, options, local flag, salt) and the salt of the
 * in-process sink. Changed by compare-and-set, so two instances enabling
 * devices at once both land; other instances hear of a change through the
 * storage's `watch` on `sys/audit/`.
 *
 * Runtime-neutral.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { encodeHex, fromUtf8, tryDecodeHex, utf8 } from '../encoding.js';
import { conflict, internal } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';

/** Where the table lives. @internal */
export const AUDIT_PREFIX = 'sys/audit/';
/** @internal */
export const AUDIT_TABLE_KEY = 'sys/audit/table';

/** One stored device. @internal */
export interface StoredDevice {
  type: string;
  description: string;
  options: Record<string, string>;
  local: boolean;
  /** Hex of 32 random bytes. */
  salt: string;
}

/** The stored table. @internal */
export interface AuditTable {
  devices: Record<string, StoredDevice>;
  /** Hex salt of the in-process sink (made when a sink first needs it). */
  sink_salt?: string;
}

const SALT_BYTES = 32;
const CAS_ATTEMPTS = 20;

/** A new random salt (hex). @internal */
export const newSalt = (backend: CryptoBackend): string =>
  encodeHex(backend.randomBytes(SALT_BYTES));

/** The bytes of a stored salt. @internal */
export function saltBytes(hex: string): Uint8Array {
  const b = tryDecodeHex(hex);
  if (!b || b.length !== SALT_BYTES) throw internal('audit table: a malformed salt');
  return b;
}

function decode(raw: Uint8Array | undefined): AuditTable {
  if (raw === undefined) return { devices: {} };
  let doc: unknown;
  try {
    doc = JSON.parse(fromUtf8(raw));
  } catch (e) {
    throw internal('audit table: not JSON', e);
  }
  const t = doc as Partial<AuditTable> | null;
  if (typeof t !== 'object' || t === null || typeof t.devices !== 'object' || t.devices === null) {
    throw internal('audit table: malformed');
  }
  return { devices: t.devices, ...(t.sink_salt === undefined ? {} : { sink_salt: t.sink_salt }) };
}

/** Read the table (empty when none was written). @internal */
export async function readTable(storage: StorageAdapter): Promise<AuditTable> {
  return decode(await storage.get(AUDIT_TABLE_KEY));
}

/**
 * Change the table: `change` gets the current table and returns the next one
 * (or `undefined` to leave it as is); retried on a concurrent change.
 * @returns the table as stored afterwards.
 * @throws TransitError `conflict` when other writers kept winning; what `change` throws.
 */
export async function updateTable(
  storage: StorageAdapter,
  change: (current: AuditTable) => AuditTable | undefined,
): Promise<AuditTable> {
  for (let i = 0; i < CAS_ATTEMPTS; i++) {
    const raw = await storage.get(AUDIT_TABLE_KEY);
    const current = decode(raw);
    const next = change(current);
    if (next === undefined) return current;
    if (await storage.compareAndSet(AUDIT_TABLE_KEY, raw, utf8(JSON.stringify(next)))) return next;
  }
  throw conflict('the audit table kept changing; try again');
}
