/**
 * transitkit — Vault's transit engine as an embeddable library: named,
 * versioned keys that encrypt, decrypt, rewrap, HMAC and hash without
 * exposing their material, on pluggable storage, byte-compatible with Vault.
 *
 * Subpaths: `transitkit` (this: the engine and the memory adapter),
 * `transitkit/adapters/file` (durable single-process storage).
 * @packageDocumentation
 */

// Engine
export { Transit } from './transit/transit.js';
export type { TransitOptions } from './transit/transit.js';
export type { AutoRotateResult } from './transit/auto-rotate.js';
export { warningsOf } from './transit/warnings.js';
export type {
  BatchResult,
  CacheConfig,
  CiphertextBatchItem,
  CiphertextResult,
  CreateKeyRequest,
  DataKeyRequest,
  DataKeyResult,
  DecryptBatchItem,
  DecryptItem,
  DecryptRequest,
  Duration,
  EncryptItem,
  EncryptOptions,
  EncryptRequest,
  HashRequest,
  HmacBatchItem,
  HmacItem,
  HmacRequest,
  KeyConfigRequest,
  KeyInfo,
  KeysConfig,
  ListKeysRequest,
  RandomRequest,
  RewrapItem,
  RewrapRequest,
  VerifyBatchItem,
  VerifyItem,
  VerifyRequest,
} from './transit/types.js';
export type { KeyType } from './keys/key-types.js';
export type { BackupInfo } from './keys/policy.js';
export { MAX_KEY_NAME_LENGTH } from './keys/names.js';

// Errors, time, encodings
export { TransitError, isTransitError } from './errors.js';
export type { ErrorCode } from './errors.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export type { BinaryInput } from './encoding.js';

// Storage
export { hasLock, hasWatch } from './storage/adapter.js';
export type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from './storage/adapter.js';
export { MemoryStorage } from '../adapters/memory/index.js';
export type { MemoryStorageOptions } from '../adapters/memory/index.js';

// Crypto backends
export { AeadAuthError } from './crypto/backend.js';
export type { AeadAlgorithm, CryptoBackend, HashName } from './crypto/backend.js';
export { nobleBackend } from './crypto/noble/index.js';
