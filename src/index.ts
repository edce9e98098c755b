/**
 * transitkit — Vault's transit engine as an embeddable library: named,
 * versioned keys that encrypt, decrypt, rewrap, HMAC and hash without
 * exposing their material, on pluggable storage, byte-compatible with Vault.
 *
 * Subpaths: `transitkit` (this: the engine and the memory adapter),
 * `transitkit/adapters/file` (durable single-process storage).
 * @packageDocumentation
 */

export type { MemoryStorageOptions } from '../adapters/memory/index.js';
export { MemoryStorage } from '../adapters/memory/index.js';
export type { Clock } from './clock.js';
export { systemClock } from './clock.js';
// Asymmetric keys (issue 3)
export type {
  AsymmetricBackend,
  EcCurve,
  EcdsaSignatureFormat,
  EcPrivateKey,
  EcPublicKey,
  Ed25519PrivateKey,
  OaepHash,
  RsaModulusBits,
  RsaPrivateKey,
  RsaPublicKey,
  SignatureHash,
  SignedData,
} from './crypto/asymmetric-backend.js';
export { RsaDecryptionError } from './crypto/asymmetric-backend.js';
export type { AeadAlgorithm, CryptoBackend, HashName } from './crypto/backend.js';
// Crypto backends
export { AeadAuthError } from './crypto/backend.js';
export { nobleBackend } from './crypto/noble/index.js';
export type { BinaryInput } from './encoding.js';
export type { ErrorCode } from './errors.js';
// Errors, time, encodings
export { isTransitError, TransitError } from './errors.js';
export type { KeyType } from './keys/key-types.js';
export { MAX_KEY_NAME_LENGTH } from './keys/names.js';
export type { BackupInfo } from './keys/policy.js';
// Leases (issue 6)
export { LeaseManager } from './leases/lease-manager.js';
export type {
  IrrevocableLease,
  IrrevocableList,
  IssueRequest,
  LeaseCount,
  LeaseDuration,
  LeaseGrant,
  LeaseList,
  LeaseLookup,
  LeaseManagerOptions,
  RevokableLease,
  RevokeOptions,
  Revoker,
  TickResult,
  TidyResult,
} from './leases/types.js';
export type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from './storage/adapter.js';
// Storage
export { hasLock, hasWatch } from './storage/adapter.js';
export type { AutoRotateResult } from './transit/auto-rotate.js';
export type { TransitOptions } from './transit/transit.js';
// Engine
export { Transit } from './transit/transit.js';
export type {
  AsymmetricKeyVersionInfo,
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
  ExportKeyOptions,
  ExportKeyResult,
  ExportKeyType,
  HashRequest,
  HmacBatchItem,
  HmacItem,
  HmacRequest,
  KeyConfigRequest,
  KeyInfo,
  KeysConfig,
  ListKeysRequest,
  RandomRequest,
  ReadKeyRequest,
  RestoreRequest,
  RewrapItem,
  RewrapRequest,
  SetCertificateRequest,
  SetCertificateResult,
  SignatureOptions,
  SignBatchItem,
  SignCsrRequest,
  SignCsrResult,
  SignItem,
  SignRequest,
  SignResult,
  VerifyBatchItem,
  VerifyItem,
  VerifyRequest,
} from './transit/types.js';
export { warningsOf } from './transit/warnings.js';
