/**
 * The Node audit device types, `file` and `socket` (Vault's), for
 * `AuditBroker` and `TransitNode`'s `audit.devices` option. The CLI server
 * registers them.
 *
 * Node only.
 * @module
 */
import type { AuditDeviceFactory } from 'transitkit';
import { fileAuditDevice } from './file-device.js';
import { socketAuditDevice } from './socket-device.js';

export { fileAuditDevice } from './file-device.js';
export { socketAuditDevice } from './socket-device.js';

/**
 * `{ file, socket }`: Vault's file and socket audit device types.
 *
 * @example
 * ```ts
 * import { MemoryStorage, TransitNode } from 'transitkit';
 * import { nodeAuditDevices } from 'transitkit/http/node';
 *
 * const node = new TransitNode({
 *   storage: new MemoryStorage(),
 *   audit: { devices: nodeAuditDevices() },
 * });
 * ```
 * @public
 */
export function nodeAuditDevices(): Record<string, AuditDeviceFactory> {
  return { file: fileAuditDevice, socket: socketAuditDevice };
}
