/**
 * The stored side of `sys/audit` and `sys/audit-hash` (broker.ts): listing
 * the table, adding a device to it (its output opened first, as Vault's
 * sanity check), removing one, and hashing with a device's salt. Each reads
 * or changes the table in storage only; the broker then brings the devices
 * open on its instance in line (./live-set.ts).
 *
 * Runtime-neutral.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { invalidRequest, isTransitError } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { checkEnable, normalizePath } from './enable.js';
import { saltHasher } from './hash.js';
import { newSalt, readTable, type StoredDevice, saltBytes, updateTable } from './table.js';
import type {
  AuditDevice,
  AuditDeviceFactory,
  AuditDeviceInfo,
  AuditEnableRequest,
} from './types.js';

/** `GET sys/audit`: the enabled devices by path (read from storage). @internal */
export async function listDevices(
  storage: StorageAdapter,
): Promise<Record<string, AuditDeviceInfo>> {
  const table = await readTable(storage);
  const out: Record<string, AuditDeviceInfo> = {};
  for (const path of Object.keys(table.devices).sort()) {
    const d = table.devices[path] as StoredDevice;
    out[path] = {
      type: d.type,
      description: d.description,
      options: { ...d.options },
      local: d.local,
      path,
    };
  }
  return out;
}

/** A device {@link addDevice} added to the table, with its output open. @internal */
export interface AddedDevice {
  /** The normalised path. */
  readonly path: string;
  readonly stored: StoredDevice;
  readonly device: AuditDevice;
}

/**
 * The stored side of `PUT sys/audit/:path`: open the device's output (a path
 * that cannot be opened is refused), then add it to the table (the output is
 * closed again when that fails).
 * @throws TransitError `invalid_request` for an unknown type or option, a
 * bad option value, a path in use, or an output that cannot be opened.
 * @internal
 */
export async function addDevice(
  storage: StorageAdapter,
  backend: CryptoBackend,
  factories: Readonly<Record<string, AuditDeviceFactory>>,
  path: string,
  request: AuditEnableRequest,
): Promise<AddedDevice> {
  const p = normalizePath(path);
  const { type, description, options, local, factory } = checkEnable(request, factories);
  if ((await readTable(storage)).devices[p]) throw invalidRequest('path already in use');
  let device: AuditDevice;
  try {
    device = await factory.create({ path: p, options });
  } catch (e) {
    if (isTransitError(e)) throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw invalidRequest(`sanity check failed; unable to open audit device: ${why}`);
  }
  const stored: StoredDevice = {
    type,
    description,
    options,
    local,
    salt: newSalt(backend),
  };
  try {
    await updateTable(storage, (t) => {
      if (t.devices[p]) throw invalidRequest('path already in use');
      return { ...t, devices: { ...t.devices, [p]: stored } };
    });
  } catch (e) {
    await device.close().catch(() => undefined);
    throw e;
  }
  return { path: p, stored, device };
}

/**
 * The stored side of `DELETE sys/audit/:path`: drop the device from the
 * table (nothing when no device is there).
 * @returns the normalised path.
 * @internal
 */
export async function removeDevice(storage: StorageAdapter, path: string): Promise<string> {
  const p = normalizePath(path);
  await updateTable(storage, (t) => {
    if (!t.devices[p]) return undefined;
    const devices = { ...t.devices };
    delete devices[p];
    return { ...t, devices };
  });
  return p;
}

/**
 * `PUT sys/audit-hash/:path`: `input` hashed with that device's salt, as it
 * appears in its log.
 * @throws TransitError `invalid_request` when no device is at `path` or `input` is not a string.
 * @internal
 */
export async function deviceHash(
  storage: StorageAdapter,
  backend: CryptoBackend,
  path: string,
  input: string,
): Promise<string> {
  const p = normalizePath(path);
  if (typeof input !== 'string') throw invalidRequest('input must be a string');
  const d = (await readTable(storage)).devices[p];
  if (!d) throw invalidRequest(`unknown audit device path ${JSON.stringify(p)}`);
  return saltHasher(backend, saltBytes(d.salt))(input);
}
