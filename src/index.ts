/**
 * transitkit — Vault's transit engine as an embeddable library: named,
 * versioned keys that encrypt, decrypt, rewrap, HMAC and hash without
 * exposing their material, on pluggable storage, byte-compatible with Vault.
 *
 * Subpaths: `transitkit` (this: the engine, the lease manager, tokens and
 * policies, the sealable node and barrier, the memory adapter),
 * `transitkit/adapters/file` (durable single-process storage),
 * `transitkit/adapters/redis` (shared storage for many instances),
 * `transitkit/http` (Vault's HTTP API) and `transitkit/http/node` (a Node
 * server that also accepts the `LIST` method).
 * @packageDocumentation
 */

// Audit devices (issue #19): the broker, its shapes, the in-process sink
export type { AuditBrokerOptions } from './audit/broker.js';
export { AuditBroker } from './audit/broker.js';
export type { AuditRequestInput, AuditResponseInput } from './audit/format.js';
export type {
  AuditAuth,
  AuditDevice,
  AuditDeviceFactory,
  AuditDeviceInfo,
  AuditEnableRequest,
  AuditEntry,
  AuditFailureInfo,
  AuditRequest,
  AuditResponse,
  AuditSink,
} from './audit/types.js';
// Tokens and ACL policies (the HTTP adapter's auth; `transitkit/http` re-exports them)
export type { AclOperation } from './auth/acl.js';
export { Acl } from './auth/acl.js';
export type { AclPolicyDocument, AclPolicyStoreOptions } from './auth/acl-policies.js';
export { AclPolicyStore, DEFAULT_POLICY } from './auth/acl-policies.js';
export type { Capability, ParsedPolicy, PolicyRule } from './auth/policy-hcl.js';
export { parsePolicy } from './auth/policy-hcl.js';
export type {
  TokenAuth,
  TokenContext,
  TokenCreateRequest,
  TokenLookup,
  TokenStoreOptions,
} from './auth/token-entry.js';
export { TokenStore } from './auth/token-store.js';
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
export type { AeadAlgorithm, CryptoBackend, HashName, TextEncodingName } from './crypto/backend.js';
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
// Metrics (issue #19): the dependency-free interface, its catalog and the no-op default
export { METRIC_DEFINITIONS, METRICS } from './metrics/catalog.js';
export { noopMetrics } from './metrics/noop.js';
export type {
  CounterInstrument,
  GaugeCallback,
  GaugeObserver,
  HistogramInstrument,
  MetricDefinition,
  MetricLabels,
  Metrics,
} from './metrics/types.js';
// Seal and barrier (issue 7)
export type { HealthState } from './node/health.js';
export { ROOT_KEY_BYTES } from './node/keyring.js';
// The node: leadership shared by the background duties (issue #23)
export type { LeadershipOptions } from './node/leadership.js';
export { Leadership } from './node/leadership.js';
export { TransitNode } from './node/transit-node.js';
export type {
  InitRequest,
  InitResponse,
  NodeServices,
  SealStatus,
  TransitNodeOptions,
  UnsealRequest,
} from './node/types.js';
export { warningsOf } from './result-meta.js';
export type {
  ListOptions,
  LockHandle,
  StorageAdapter,
  StorageLock,
  StorageWatch,
} from './storage/adapter.js';
// Storage
export { hasLock, hasWatch } from './storage/adapter.js';
export type { BarrierCrypto, BarrierKeyring } from './storage/barrier.js';
export { BARRIER_RESERVED_PREFIX, Barrier } from './storage/barrier.js';
export type { InstrumentedStorage } from './storage/instrumented.js';
export { instrumentStorage } from './storage/instrumented.js';
export type { MemoryStorageOptions } from './storage/memory.js';
export { MemoryStorage } from './storage/memory.js';
// Streaming encryption of large objects (issue 17)
export type { StreamDecryptOptions, StreamEncryptOptions } from './stream/data-key.js';
export type { EnvelopeHeader } from './stream/header.js';
export { readEnvelopeHeader } from './stream/header.js';
export type { EncryptedObject } from './stream/reader.js';
export type { FileHandleLike, RandomAccessSource, ReadAtSource } from './stream/source.js';
export type { AutoRotateResult } from './transit/auto-rotate.js';
// Key mobility (issue 4)
export type {
  ByokExportOptions,
  ByokExportResult,
  ImportHashFunction,
  ImportKeyRequest,
  ImportKeyVersionRequest,
  WrappingKeyResult,
} from './transit/mobility-types.js';
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
