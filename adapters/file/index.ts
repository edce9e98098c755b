/**
 * `transitkit/adapters/file`: durable storage on a local directory, for a single
 * process (one file per key, atomic writes, an exclusive `.lock`).
 *
 * This entry point is the only public surface of the folder; the other modules
 * (key encoding, atomic write, directory lock) are implementation details.
 * Node only (`node:fs`), hence its own subpath.
 *
 * @module
 */

export type { FileStorageOptions } from './file-storage.js';
export { FileStorage } from './file-storage.js';
