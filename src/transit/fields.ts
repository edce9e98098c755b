/**
 * Field specs several endpoint schemas share (the same name means the same
 * thing everywhere), with their descriptions. Each endpoint module builds its
 * schema from these and its own fields (src/schema.ts).
 * @module
 */
import type { FieldSpec } from '../schema.js';

/** Derivation context (base64). @internal */
export const CONTEXT = {
  type: 'string',
  binary: true,
  description: 'Base64 context for key derivation; required when the key is derived.',
} as const satisfies FieldSpec;

/** AEAD associated data (base64). @internal */
export const ASSOCIATED_DATA = {
  type: 'string',
  binary: true,
  description: 'Base64 associated data, authenticated but not encrypted (AEAD key types only).',
} as const satisfies FieldSpec;

/** The caller's nonce (legacy convergent v1 keys only). @internal */
export const NONCE = {
  type: 'string',
  binary: true,
  description: 'Base64 nonce; only for keys with convergent encryption version 1.',
} as const satisfies FieldSpec;

/** A batch item's reference, echoed in its result. @internal */
export const REFERENCE = {
  type: 'string',
  description: 'A caller reference echoed in the result of the item (batch requests).',
} as const satisfies FieldSpec;

/** A list of items processed independently. @internal */
export const BATCH_INPUT = {
  type: 'array',
  description: 'A list of items, each with the single-request fields, processed independently.',
} as const satisfies FieldSpec;

/** The key version to use. @internal */
export const KEY_VERSION = {
  type: 'int',
  description: 'The key version to use; 0 or omitted means the latest.',
} as const satisfies FieldSpec;

/** Vault's partial-failure status for batch requests (HTTP only). @internal */
export const PARTIAL_FAILURE_RESPONSE_CODE = {
  type: 'int',
  description: 'HTTP status when some (not all) batch items fail; default 400.',
} as const satisfies FieldSpec;

/** Vault Enterprise's parameter set of a parameterised type (`ml-dsa`). @internal */
export const PARAMETER_SET = {
  type: 'string',
  description:
    'With type ml-dsa (Vault Enterprise spelling): 44, 65 or 87, stored as mldsa-44/65/87.',
} as const satisfies FieldSpec;

/** A key type. @internal */
export const KEY_TYPE = {
  type: 'string',
  description:
    'The key type, e.g. aes256-gcm96 (the default), ecdsa-p256, ed25519, rsa-2048, mldsa-65, hmac.',
} as const satisfies FieldSpec;

/** Derivation flag. @internal */
export const DERIVED = {
  type: 'bool',
  description: 'Derive a key per context; every operation then requires a context.',
} as const satisfies FieldSpec;

/** Convergent encryption flag. @internal */
export const CONVERGENT_ENCRYPTION = {
  type: 'bool',
  description: 'Deterministic encryption per context and plaintext; requires derived.',
} as const satisfies FieldSpec;

/** Exportable flag (irreversible). @internal */
export const EXPORTABLE = {
  type: 'bool',
  description: 'Allow export of the key versions; cannot be turned off again.',
} as const satisfies FieldSpec;

/** Plaintext backup flag (irreversible). @internal */
export const ALLOW_PLAINTEXT_BACKUP = {
  type: 'bool',
  description: 'Allow a plaintext backup of the key; cannot be turned off again.',
} as const satisfies FieldSpec;

/** Automatic rotation period. @internal */
export const AUTO_ROTATE_PERIOD = {
  type: 'duration',
  description: 'Automatic rotation period (seconds or a duration string); 0 disables; at least 1h.',
} as const satisfies FieldSpec;

/** Input data (base64). @internal */
export const INPUT = {
  type: 'string',
  binary: true,
  description: 'Base64 input data.',
} as const satisfies FieldSpec;

/** Output format of hash and random. @internal */
export const HEX_OR_BASE64 = {
  type: 'string',
  description: 'Output encoding: hex (default) or base64.',
} as const satisfies FieldSpec;

/** A hash algorithm name. @internal */
export const HASH_ALGORITHM = {
  type: 'string',
  description: 'sha2-224/256/384/512 or sha3-224/256/384/512 (sign and verify also sha1, none).',
} as const satisfies FieldSpec;

/** Wrapped material of an import. @internal */
export const IMPORT_CIPHERTEXT = {
  type: 'string',
  binary: true,
  description: 'Base64 of the wrapped material: RSA-OAEP(ephemeral AES key) ‖ KWP(material).',
} as const satisfies FieldSpec;

/** The OAEP hash of an import. @internal */
export const IMPORT_HASH_FUNCTION = {
  type: 'string',
  description: 'The RSA-OAEP hash of the wrapping: SHA1, SHA224, SHA256 (default), SHA384, SHA512.',
} as const satisfies FieldSpec;

/** A public key (PEM) imported alone. @internal */
export const IMPORT_PUBLIC_KEY = {
  type: 'string',
  description: 'A PEM public key to import without its private key (verify/encrypt only).',
} as const satisfies FieldSpec;
