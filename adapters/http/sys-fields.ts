/**
 * Field schemas of the non-transit rows (leases, tokens, ACL policies,
 * health, seal), with their descriptions, as src/transit/<endpoint>.ts
 * exports them for the transit rows: every row of routes.ts takes its fields
 * from a schema.
 *
 * Runtime-neutral.
 * @module
 */
import { defineSchema, type FieldSpec } from '../../src/schema.js';
import type { GoFieldSpec } from './params.js';

const LEASE_ID = { type: 'string', description: 'The lease id.' } as const satisfies FieldSpec;
const SYNC = {
  type: 'bool',
  description: 'Wait for the revocation (default true); false answers 202 at once.',
} as const satisfies FieldSpec;
const INCREMENT = {
  type: 'duration',
  description: 'Requested extension (seconds or a duration string).',
} as const satisfies FieldSpec;
const TYPE = {
  type: 'string',
  description: 'Lease kind: irrevocable.',
} as const satisfies FieldSpec;
const CHILD_NAMESPACES = {
  type: 'bool',
  description: 'Accepted for Vault compatibility (there are no namespaces).',
} as const satisfies FieldSpec;

/** `POST /sys/leases/lookup`. @internal */
export const LEASE_LOOKUP_FIELDS = defineSchema({ lease_id: LEASE_ID });
/** `POST /sys/leases/renew(/:url_lease_id)`. @internal */
export const LEASE_RENEW_FIELDS = defineSchema({ lease_id: LEASE_ID, increment: INCREMENT });
/** `POST /sys/leases/revoke(/:url_lease_id)`. @internal */
export const LEASE_REVOKE_FIELDS = defineSchema({ lease_id: LEASE_ID, sync: SYNC });
/** `POST /sys/leases/revoke-prefix/:prefix`. @internal */
export const LEASE_REVOKE_PREFIX_FIELDS = defineSchema({ sync: SYNC });
/** `GET /sys/leases/count`. @internal */
export const LEASE_COUNT_FIELDS = defineSchema({
  type: TYPE,
  include_child_namespaces: CHILD_NAMESPACES,
});
/** `GET /sys/leases` (irrevocable leases). @internal */
export const LEASE_LIST_FIELDS = defineSchema({
  type: TYPE,
  include_child_namespaces: CHILD_NAMESPACES,
  limit: { type: 'string', description: 'At most this many leases, or none.' },
});

/** `POST /auth/token/create`. @internal */
export const TOKEN_CREATE_FIELDS = defineSchema({
  policies: { type: 'strings', description: 'Policies of the token (a subset of the parent’s).' },
  ttl: { type: 'duration', description: 'Time to live.' },
  explicit_max_ttl: {
    type: 'duration',
    description: 'Hard limit on the lifetime, renewals included.',
  },
  renewable: { type: 'bool', description: 'Whether the token can be renewed.' },
  num_uses: { type: 'int', description: 'Number of uses; 0 = unlimited.' },
  display_name: { type: 'string', description: 'A name shown in lookups.' },
  meta: { type: 'map', description: 'String metadata.' },
  no_default_policy: { type: 'bool', description: 'Do not attach the default policy.' },
  no_parent: { type: 'bool', description: 'Create an orphan token (needs sudo).' },
  lease: { type: 'duration', description: 'Older name of ttl (read when ttl is absent).' },
  period: {
    type: 'duration',
    description: 'Renew period (root or sudo): the TTL at creation and at every renewal.',
  },
  type: { type: 'string', description: 'service (default); batch is refused.' },
  id: { type: 'string', description: 'The token itself (root or sudo): no `.` in it.' },
  entity_alias: {
    type: 'string',
    description: 'Refused when set: Vault takes it only with a token role, and there are none.',
  },
});
/** `POST /auth/token/renew-self`. @internal */
export const TOKEN_RENEW_FIELDS = defineSchema({ increment: INCREMENT });
/** `POST /auth/token/revoke`, `revoke-orphan`. @internal */
export const TOKEN_REVOKE_FIELDS = defineSchema({
  token: { type: 'string', description: 'The token to revoke.' },
});
/** `POST /auth/token/lookup`. @internal */
export const TOKEN_LOOKUP_FIELDS = defineSchema({
  token: { type: 'string', description: 'The token to look up (default: the caller’s).' },
});
/** `POST /auth/token/renew`. @internal */
export const TOKEN_RENEW_OTHER_FIELDS = defineSchema({
  token: { type: 'string', description: 'The token to renew.' },
  increment: INCREMENT,
});
/** `POST /auth/token/renew-accessor`. @internal */
export const TOKEN_RENEW_ACCESSOR_FIELDS = defineSchema({
  accessor: { type: 'string', description: 'The accessor of the token to renew.' },
  increment: INCREMENT,
});
/** `POST /auth/token/lookup-accessor`, `revoke-accessor`. @internal */
export const TOKEN_ACCESSOR_FIELDS = defineSchema({
  accessor: { type: 'string', description: 'The accessor of the token.' },
});

/** `POST /sys/policy/:name`, `POST /sys/policies/acl/:name`. @internal */
export const POLICY_FIELDS = defineSchema({
  policy: { type: 'string', description: 'The policy document (HCL or JSON).' },
  rules: { type: 'string', description: 'Legacy name of policy.' },
});

const CODE = (what: string, dflt: number): FieldSpec => ({
  type: 'string',
  description: `Status code when ${what} (default ${dflt}).`,
});

/** `GET|HEAD /sys/health` (query parameters, read as Go parses them, health.ts). @internal */
export const HEALTH_FIELDS = defineSchema({
  standbyok: { type: 'string', description: 'Answer activecode on a standby node.' },
  perfstandbyok: { type: 'string', description: 'Answer activecode on a performance standby.' },
  activecode: CODE('active', 200),
  standbycode: CODE('standby', 429),
  drsecondarycode: CODE('a DR secondary', 472),
  performancestandbycode: CODE('a performance standby', 473),
  sealedcode: CODE('sealed', 503),
  uninitcode: CODE('not initialized', 501),
});

/** A field of Vault's Go request struct `field` (`InitRequest.secret_shares`): strict JSON types. */
const goField = <const T extends GoFieldSpec['type']>(
  type: T,
  go: string,
  description: string,
): { type: T; go: string; description: string } => ({ type, go, description });

/**
 * `POST /sys/init`: Vault decodes the body into its `InitRequest` struct with
 * encoding/json, so a wrong JSON type (`"3"` for a count) is refused with
 * Go's text, not converted (params.ts).
 * @internal
 */
export const INIT_FIELDS = defineSchema({
  secret_shares: goField('int', 'InitRequest.secret_shares', 'Number of unseal key shares.'),
  secret_threshold: goField('int', 'InitRequest.secret_threshold', 'Shares needed to unseal.'),
  pgp_keys: goField('strings', 'InitRequest.pgp_keys', 'Not supported (refused when set).'),
  root_token_pgp_key: goField(
    'string',
    'InitRequest.root_token_pgp_key',
    'Not supported (refused when set).',
  ),
  stored_shares: goField('int', 'InitRequest.stored_shares', 'Accepted for Vault compatibility.'),
  recovery_shares: goField(
    'int',
    'InitRequest.recovery_shares',
    'Accepted for Vault compatibility.',
  ),
  recovery_threshold: goField(
    'int',
    'InitRequest.recovery_threshold',
    'Accepted for Vault compatibility.',
  ),
  recovery_pgp_keys: goField(
    'strings',
    'InitRequest.recovery_pgp_keys',
    'Not supported (refused when set).',
  ),
});

/**
 * `POST /sys/unseal`: Vault's `UnsealRequest` struct (untagged, so Go names
 * its fields `Key`, `Reset`, `Migrate`); strict JSON types, as `INIT_FIELDS`.
 * @internal
 */
export const UNSEAL_FIELDS = defineSchema({
  key: goField('string', 'UnsealRequest.Key', 'One unseal key share (base64 or hex).'),
  reset: goField('bool', 'UnsealRequest.Reset', 'Discard the shares given so far.'),
  migrate: goField('bool', 'UnsealRequest.Migrate', 'Accepted for Vault compatibility.'),
});
