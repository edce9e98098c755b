/**
 * transitkit — Vault's transit engine as an embeddable library.
 * @packageDocumentation
 */
export { TransitError, isTransitError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export type { BinaryInput } from './encoding.js';
export { hasLock, hasWatch } from './storage/adapter.js';
export type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from './storage/adapter.js';
export { AeadAuthError } from './crypto/backend.js';
export type { AeadAlgorithm, CryptoBackend, HashName } from './crypto/backend.js';
