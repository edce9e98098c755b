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
import type { Clock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { invalidRequest, isTransitError } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { checkEnable, normalizePath } from './enable.js';
import type { AuditRequestInput } from './format.js';
import { saltHasher } from './hash.js';
import { liveDevice, writeEntry } from './live.js';
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

/** What {@link addDevice} works with. @internal */
export interface AddContext {
  readonly storage: StorageAdapter;
  readonly backend: CryptoBackend;
  /** Device types by name. */
  readonly factories: Readonly<Record<string, AuditDeviceFactory>>;
  /** Whether `options.prefix` may be set (enable.ts). */
  readonly allowPrefix: boolean;
  /** The test entry's time. */
  readonly clock: Clock;
}

/**
 * The stored side of `PUT sys/audit/:path`: open the device's output and
 * write a test entry through it (Vault's test message: an output that
 * cannot be opened or written is refused, and no device that would fail
 * every request — its own disable included — enters the table), then add it
 * to the table (the output is closed again when that fails).
 * @throws TransitError `invalid_request` for an unknown type or option, a
 * bad option value, a path in use (or nested in or around one in use), or
 * an output that cannot be opened or written.
 * @internal
 */
export async function addDevice(
  ctx: AddContext,
  path: string,
  request: AuditEnableRequest,
): Promise<AddedDevice> {
  const { storage, backend } = ctx;
  const p = normalizePath(path);
  const checked = checkEnable(request, ctx.factories, ctx.allowPrefix);
  refuseOverlap((await readTable(storage)).devices, p);
  let device: AuditDevice;
  try {
    device = await checked.factory.create({ path: p, options: checked.options });
  } catch (e) {
    if (isTransitError(e)) throw e;
    throw invalidRequest(`sanity check failed; unable to open audit device: ${messageOf(e)}`);
  }
  const { type, description, options, local } = checked;
  const stored: StoredDevice = { type, description, options, local, salt: newSalt(backend) };
  try {
    try {
      await writeEntry(
        liveDevice(backend, p, stored, device, undefined),
        testProbe(ctx.clock.now()),
        undefined,
      );
    } catch (e) {
      throw invalidRequest(`audit backend failed test message: ${messageOf(e)}`);
    }
    await updateTable(storage, (t) => {
      refuseOverlap(t.devices, p);
      return { ...t, devices: { ...t.devices, [p]: stored } };
    });
  } catch (e) {
    await device.close().catch(() => undefined);
    throw e;
  }
  return { path: p, stored, device };
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Refuse `p` when a device is at `p`, or at a path `p` lies under, or under
 * `p` (Vault: each path is a prefix of none of the others).
 */
function refuseOverlap(devices: Readonly<Record<string, StoredDevice>>, p: string): void {
  for (const q of Object.keys(devices)) {
    if (q.startsWith(p) || p.startsWith(q)) throw invalidRequest('path already in use');
  }
}

/** The request entry written through a new device before it is enabled (Vault's test probe). */
function testProbe(time: number): AuditRequestInput {
  return {
    id: globalThis.crypto.randomUUID(),
    time,
    operation: 'update',
    mountPoint: 'sys/',
    mountType: 'system',
    path: 'sys/audit/test',
  };
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
