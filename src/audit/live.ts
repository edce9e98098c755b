/**
 * One device as an instance holds it: its stored configuration, parsed
 * options, salt-bound hashing, and its output — or, when the output could
 * not be opened here, the reason, so every entry fails on this instance
 * (fail closed) while the table still lists the device.
 *
 * Runtime-neutral.
 * @module
 */
import type { CryptoBackend } from '../crypto/backend.js';
import { PREFIX_REFUSED } from './enable.js';
import {
  type AuditRequestInput,
  type AuditResponseInput,
  type DeviceHashing,
  entryLine,
  type FormatOptions,
  formatOptions,
} from './format.js';
import { saltHasher, tokenHasher } from './hash.js';
import { type StoredDevice, saltBytes } from './table.js';
import type { AuditDevice, AuditDeviceFactory } from './types.js';

/** @internal */
export interface LiveDevice {
  readonly path: string;
  readonly stored: StoredDevice;
  readonly format: FormatOptions;
  readonly hashing: DeviceHashing;
  /** Serialised `auth` and `request` blocks by request, for its response entry. */
  readonly parts: WeakMap<AuditRequestInput, string>;
  /** Undefined when it failed to open here (then every entry fails, with `openError`). */
  readonly device: AuditDevice | undefined;
  readonly openError: string | undefined;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The live form of a stored device. @internal */
export function liveDevice(
  backend: CryptoBackend,
  path: string,
  stored: StoredDevice,
  device: AuditDevice | undefined,
  openError: string | undefined,
): LiveDevice {
  let format: FormatOptions;
  let error = openError;
  try {
    format = formatOptions(stored.options);
  } catch (e) {
    format = formatOptions({});
    error ??= messageOf(e);
  }
  const hash = saltHasher(backend, saltBytes(stored.salt));
  return {
    path,
    stored,
    format,
    hashing: { hash, tokens: tokenHasher(hash) },
    parts: new WeakMap(),
    device,
    openError: error,
  };
}

/** Open a stored device with its factory; a failure gives a device that fails every entry. @internal */
export async function openLive(
  factory: AuditDeviceFactory | undefined,
  backend: CryptoBackend,
  path: string,
  stored: StoredDevice,
  logger: { error(message: string, error?: unknown): void },
  allowPrefix: boolean,
): Promise<LiveDevice> {
  try {
    if (!factory) throw new Error(`no audit device type ${stored.type} on this instance`);
    let options = stored.options;
    if (!allowPrefix && options.prefix) {
      logger.error(`transitkit/audit: device ${path} writes without its prefix: ${PREFIX_REFUSED}`);
      const { prefix: _, ...rest } = options;
      options = rest;
    }
    const device = await factory.create({ path, options });
    return liveDevice(backend, path, { ...stored, options }, device, undefined);
  } catch (e) {
    logger.error(`transitkit/audit: cannot open audit device ${path}`, e);
    return liveDevice(backend, path, stored, undefined, messageOf(e));
  }
}

/** Write one entry on a device. @throws what the device throws; an error when it is not open. @internal */
export async function writeEntry(
  d: LiveDevice,
  input: AuditRequestInput,
  response: AuditResponseInput | undefined,
): Promise<void> {
  if (!d.device) throw new Error(d.openError ?? 'audit device not open');
  await d.device.write(entryLine(input, response, d.format, d.hashing, d.parts));
}
