/**
 * THE route table: one row per route of spec/transit-service.md, in the
 * spec's order, then the token and policy routes Vault clients need
 * ({@link ROUTES}). The seal routes of a node are in seal-routes.ts, the
 * stream routes in stream-routes.ts and the audit routes in audit-routes.ts;
 * route-front.ts joins the four tables.
 *
 * Paths are relative to `/v1`; `/transit` stands for the mount (configurable).
 * Capabilities default by method (GET read, POST update, DELETE delete, LIST
 * list); a row says otherwise where it differs. Each row is one library call.
 * A row's fields are an endpoint schema: the transit endpoint module's own
 * (`src/transit/<endpoint>.ts`, the schema the library checks its requests
 * with), or sys-fields.ts for the lease, token and policy rows.
 * A spec route whose library method has not landed yet is listed in
 * {@link PENDING} with its issue; adding it is one row here.
 *
 * Runtime-neutral.
 * @module
 */
import type {
  DataKeyRequest,
  ExportKeyType,
  ImportKeyRequest,
  KeyInfo,
  LeaseDuration,
  RestoreRequest,
  SetCertificateRequest,
  SignCsrRequest,
} from 'transitkit';
import { warningsOf, withWarnings } from '../../src/result-meta.js';
import { RESTORE_FIELDS } from '../../src/transit/backup.js';
import { SET_CERTIFICATE_FIELDS, SIGN_CSR_FIELDS } from '../../src/transit/certificate-fields.js';
import { CACHE_CONFIG_FIELDS, KEYS_CONFIG_FIELDS } from '../../src/transit/config.js';
import { DATAKEY_FIELDS } from '../../src/transit/datakey.js';
import { DECRYPT_FIELDS, ENCRYPT_FIELDS, REWRAP_FIELDS } from '../../src/transit/encrypt.js';
import { EXPORT_KEY_FIELDS } from '../../src/transit/export.js';
import { HASH_FIELDS, RANDOM_FIELDS } from '../../src/transit/hash-random.js';
import { HMAC_FIELDS } from '../../src/transit/hmac.js';
import { CREATE_KEY_FIELDS, LIST_KEYS_FIELDS, READ_KEY_FIELDS } from '../../src/transit/keys.js';
import {
  BYOK_EXPORT_FIELDS,
  IMPORT_KEY_FIELDS,
  IMPORT_KEY_VERSION_FIELDS,
} from '../../src/transit/mobility-fields.js';
import { KEY_CONFIG_FIELDS, TRIM_FIELDS } from '../../src/transit/rotate-config.js';
import { SIGN_FIELDS, VERIFY_FIELDS } from '../../src/transit/sign.js';
import {
  createToken,
  health,
  keyExists,
  leaseIdOf,
  listIrrevocable,
  listPolicies,
  readPolicy,
  restoreTarget,
  revokeOrphanToken,
  self,
  writePolicy,
} from './calls.js';
import { METRICS_FIELDS, metricsBody } from './metrics.js';
import { randomUrl } from './random-url.js';
import { del, get, list, post, type Route } from './route.js';
import {
  HEALTH_FIELDS,
  LEASE_COUNT_FIELDS,
  LEASE_LIST_FIELDS,
  LEASE_LOOKUP_FIELDS,
  LEASE_RENEW_FIELDS,
  LEASE_REVOKE_FIELDS,
  LEASE_REVOKE_PREFIX_FIELDS,
  POLICY_FIELDS,
  TOKEN_ACCESSOR_FIELDS,
  TOKEN_CREATE_FIELDS,
  TOKEN_LOOKUP_FIELDS,
  TOKEN_RENEW_ACCESSOR_FIELDS,
  TOKEN_RENEW_FIELDS,
  TOKEN_RENEW_OTHER_FIELDS,
  TOKEN_REVOKE_FIELDS,
} from './sys-fields.js';

const AUTH = { needsAuth: true } as const;
/** A policy row: the name is checked by the ACL as the store keeps it (lower case). */
const NAMED = { needsAuth: true, aclLowerCase: true } as const;
const LEASES = { needsLeases: true } as const;
/** The ACL path names the algorithm even when the body gives it (see auth.ts `aclTail`). */
const ALGORITHM = { algorithm: ['algorithm'] };
const HASH_ALGORITHM = { hash_algorithm: ['hash_algorithm', 'algorithm'] };

/**
 * A key's read body as Vault's API has it: an `hmac` key's has no `keys`
 * (formatKeyPolicy); the library's `KeyInfo` keeps one shape for every type.
 * Its warnings go with it.
 */
function vaultKeyBody(info: KeyInfo): object {
  if (info.type !== 'hmac') return info;
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(info)) {
    if (field !== 'keys') out[field] = info[field as keyof KeyInfo];
  }
  return withWarnings(out, warningsOf(info));
}

/** Every served route. @internal */
export const ROUTES: readonly Route[] = [
  // --- Key management ------------------------------------------------------------------
  post('/transit/keys/:name', { fields: CREATE_KEY_FIELDS }, (s, { path, body }) =>
    s.transit.createKey(path.name, body).then(vaultKeyBody),
  ),
  post(
    '/transit/keys/:name/import',
    { fields: IMPORT_KEY_FIELDS, reply: 'none' },
    (s, { path, body }) => s.transit.importKey(path.name, body as unknown as ImportKeyRequest),
  ),
  post(
    '/transit/keys/:name/import_version',
    { fields: IMPORT_KEY_VERSION_FIELDS, reply: 'none' },
    (s, { path, body }) => s.transit.importKeyVersion(path.name, body),
  ),
  get('/transit/wrapping_key', {}, (s) => s.transit.getWrappingKey()),
  get('/transit/keys/:name', { fields: READ_KEY_FIELDS }, (s, { path, body }) =>
    s.transit.readKey(path.name, body).then(vaultKeyBody),
  ),
  list('/transit/keys', { fields: LIST_KEYS_FIELDS }, (s, { body }) => s.transit.listKeys(body)),
  del('/transit/keys/:name', { reply: 'none' }, (s, { path }) => s.transit.deleteKey(path.name)),
  post('/transit/keys/:name/config', { fields: KEY_CONFIG_FIELDS }, (s, { path, body }) =>
    s.transit.updateKeyConfig(path.name, body).then(vaultKeyBody),
  ),
  post('/transit/keys/:name/rotate', {}, (s, { path }) =>
    s.transit.rotateKey(path.name).then(vaultKeyBody),
  ),
  del('/transit/keys/:name/soft-delete', {}, (s, { path }) =>
    s.transit.softDeleteKey(path.name).then(vaultKeyBody),
  ),
  post('/transit/keys/:name/soft-delete-restore', {}, (s, { path }) =>
    s.transit.restoreSoftDeletedKey(path.name).then(vaultKeyBody),
  ),
  post('/transit/keys/:name/trim', { fields: TRIM_FIELDS }, (s, { path, body }) =>
    s.transit.trimKey(path.name, body).then(vaultKeyBody),
  ),
  get(
    '/transit/byok-export/:destination/:source(/:version)',
    // Vault: 500 `no such destination key to export to` / `no such source key for export`.
    { fields: BYOK_EXPORT_FIELDS, notFoundMessage: true, aclVersionAt: 3 },
    (s, { path, body }) =>
      s.transit.byokExport(path.destination, path.source, { ...body, version: path.version }),
  ),
  get(
    '/transit/export/:key_type/:name(/:version)',
    { fields: EXPORT_KEY_FIELDS, aclVersionAt: 3 },
    (s, { path, body }) =>
      s.transit.exportKey(path.key_type as ExportKeyType, path.name, path.version, body),
  ),
  // Vault: 500 `key "x" not found`.
  get('/transit/backup/:name', { notFoundMessage: true }, (s, { path }) =>
    s.transit.backupKey(path.name),
  ),
  post(
    '/transit/restore(/:name)',
    {
      fields: RESTORE_FIELDS,
      reply: 'none',
      aclFromBody: { name: ['name'] },
      fillBody: restoreTarget,
    },
    (s, { body }) => s.transit.restoreKey(body as unknown as RestoreRequest),
  ),
  post('/transit/keys/:name/csr', { fields: SIGN_CSR_FIELDS }, (s, { path, body }) =>
    s.transit.signCsr(path.name, body as SignCsrRequest),
  ),
  post(
    '/transit/keys/:name/set-certificate',
    { fields: SET_CERTIFICATE_FIELDS },
    (s, { path, body }) =>
      s.transit.setCertificate(path.name, body as unknown as SetCertificateRequest),
  ),
  // --- Global configuration ------------------------------------------------------------
  post('/transit/config/keys', { fields: KEYS_CONFIG_FIELDS }, (s, { body }) =>
    s.transit.writeKeysConfig(body),
  ),
  get('/transit/config/keys', {}, (s) => s.transit.readKeysConfig()),
  post('/transit/cache-config', { fields: CACHE_CONFIG_FIELDS }, (s, { body }) =>
    s.transit.writeCacheConfig(body),
  ),
  get('/transit/cache-config', {}, (s) => s.transit.readCacheConfig()),
  // --- Data operations -----------------------------------------------------------------
  post(
    '/transit/encrypt/:name',
    { cap: 'create|update', exists: keyExists, fields: ENCRYPT_FIELDS, batchStatus: true },
    (s, { path, body }, ctx) =>
      s.transit.encrypt(path.name, body, { upsert: ctx.operation === 'create' }),
  ),
  post(
    '/transit/decrypt/:name',
    { fields: DECRYPT_FIELDS, batchStatus: true },
    (s, { path, body }) => s.transit.decrypt(path.name, body),
  ),
  post('/transit/rewrap/:name', { fields: REWRAP_FIELDS }, (s, { path, body }) =>
    s.transit.rewrap(path.name, body),
  ),
  post('/transit/datakey/:type/:name', { fields: DATAKEY_FIELDS }, (s, { path, body }) =>
    s.transit.generateDataKey(
      path.name,
      path.type as 'plaintext' | 'wrapped',
      body as DataKeyRequest,
    ),
  ),
  post('/transit/random(/:source)(/:bytes)', { fields: RANDOM_FIELDS }, (s, { path, body }) =>
    s.transit.randomBytes(randomUrl(path, body)),
  ),
  post(
    '/transit/hash(/:algorithm)',
    { fields: HASH_FIELDS, aclFromBody: ALGORITHM, aclUrlGrants: true },
    (s, { body }) => s.transit.hash(body),
  ),
  post(
    '/transit/hmac/:name(/:algorithm)',
    { fields: HMAC_FIELDS, aclFromBody: ALGORITHM, aclUrlGrants: true },
    (s, { path, body }) => s.transit.hmac(path.name, body),
  ),
  post(
    '/transit/sign/:name(/:hash_algorithm)',
    { fields: SIGN_FIELDS, aclFromBody: HASH_ALGORITHM, aclUrlGrants: true },
    (s, { path, body }) => s.transit.sign(path.name, body),
  ),
  post(
    '/transit/verify/:name(/:hash_algorithm)',
    { fields: VERIFY_FIELDS, aclFromBody: HASH_ALGORITHM, aclUrlGrants: true },
    (s, { path, body }) => s.transit.verify(path.name, body),
  ),
  // --- Lease management ----------------------------------------------------------------
  post('/sys/leases/lookup', { ...LEASES, fields: LEASE_LOOKUP_FIELDS }, (s, { body }) =>
    s.leases.lookup(body.lease_id as string),
  ),
  // The top level (`LIST sys/leases/lookup/`): Vault's pattern matches an empty prefix too.
  list('/sys/leases/lookup', { ...LEASES, sudo: true }, (s) => s.leases.list('')),
  list('/sys/leases/lookup/:prefix', { ...LEASES, sudo: true, greedy: 'prefix' }, (s, { path }) =>
    s.leases.list(path.prefix),
  ),
  post(
    '/sys/leases/renew',
    { ...LEASES, fields: LEASE_RENEW_FIELDS, reply: 'lease' },
    (s, { path, body }) =>
      s.leases.renew(leaseIdOf(path, body), body.increment as LeaseDuration | undefined),
  ),
  post(
    '/sys/leases/revoke',
    { ...LEASES, fields: LEASE_REVOKE_FIELDS, reply: 'revoke' },
    (s, { path, body }) =>
      s.leases.revoke(leaseIdOf(path, body), { sync: body.sync as boolean | undefined }),
  ),
  post(
    '/sys/leases/revoke-force/:prefix',
    { ...LEASES, sudo: true, greedy: 'prefix', aclKeepsSlash: true, reply: 'none' },
    (s, { path }) => s.leases.revokeForce(path.prefix),
  ),
  post(
    '/sys/leases/revoke-prefix/:prefix',
    {
      ...LEASES,
      sudo: true,
      greedy: 'prefix',
      aclKeepsSlash: true,
      fields: LEASE_REVOKE_PREFIX_FIELDS,
      reply: 'revoke',
    },
    (s, { path, body }) =>
      s.leases.revokePrefix(path.prefix, { sync: body.sync as boolean | undefined }),
  ),
  // Vault answers 202 at once and tidies in the background (failures go to the manager's onError).
  post('/sys/leases/tidy', { ...LEASES, reply: 'accepted' }, (s) => s.leases.startTidy()),
  get('/sys/leases/count', { ...LEASES, fields: LEASE_COUNT_FIELDS }, (s, { body }) =>
    s.leases.count({ type: body.type as 'irrevocable' }),
  ),
  get('/sys/leases', { ...LEASES, sudo: true, fields: LEASE_LIST_FIELDS }, (s, { body }) =>
    listIrrevocable(s, body),
  ),
  // Vault's path forms of renew and revoke: the lease id as trailing segments (body wins).
  post(
    '/sys/leases/renew/:url_lease_id',
    { ...LEASES, fields: LEASE_RENEW_FIELDS, reply: 'lease', greedy: 'url_lease_id' },
    (s, { path, body }) =>
      s.leases.renew(leaseIdOf(path, body), body.increment as LeaseDuration | undefined),
  ),
  post(
    '/sys/leases/revoke/:url_lease_id',
    { ...LEASES, fields: LEASE_REVOKE_FIELDS, reply: 'revoke', greedy: 'url_lease_id' },
    (s, { path, body }) =>
      s.leases.revoke(leaseIdOf(path, body), { sync: body.sync as boolean | undefined }),
  ),
  // --- Health --------------------------------------------------------------------------
  get(
    '/sys/health',
    { cap: null, head: true, reply: 'health', fields: HEALTH_FIELDS, ignoreUnknown: true },
    (s) => health(s),
  ),
  // --- Metrics (served when the handler has `metrics`; metrics.ts) -----------------------
  get('/sys/metrics', { needsMetrics: true, fields: METRICS_FIELDS, reply: 'text' }, (_s, i, ctx) =>
    metricsBody(ctx.metrics, i.body.format),
  ),
  // --- Tokens (Vault's token store) ----------------------------------------------------
  post(
    '/auth/token/create',
    { ...AUTH, fields: TOKEN_CREATE_FIELDS, reply: 'auth' },
    (s, { body }, ctx) => createToken(s, ctx, body),
  ),
  // Vault serves both lookups on read and update (its default policy grants read on lookup-self).
  get('/auth/token/lookup-self', AUTH, (s, _, ctx) => s.tokens.lookupSelf(self(ctx))),
  post('/auth/token/lookup-self', AUTH, (s, _, ctx) => s.tokens.lookupSelf(self(ctx))),
  post(
    '/auth/token/renew-self',
    { ...AUTH, fields: TOKEN_RENEW_FIELDS, reply: 'auth' },
    (s, { body }, ctx) =>
      s.tokens.renewSelf(self(ctx), body.increment as number | string | undefined),
  ),
  post('/auth/token/revoke-self', { ...AUTH, reply: 'none' }, (s, _, ctx) =>
    s.tokens.revokeSelf(self(ctx)),
  ),
  post(
    '/auth/token/revoke',
    { ...AUTH, fields: TOKEN_REVOKE_FIELDS, reply: 'none' },
    (s, { body }) => s.tokens.revoke(body.token as string),
  ),
  post(
    '/auth/token/create-orphan',
    { ...AUTH, fields: TOKEN_CREATE_FIELDS, reply: 'auth' },
    (s, { body }, ctx) => createToken(s, ctx, body, true),
  ),
  post('/auth/token/lookup', { ...AUTH, fields: TOKEN_LOOKUP_FIELDS }, (s, { body }, ctx) =>
    s.tokens.lookup(self(ctx), body.token as string | undefined),
  ),
  get('/auth/token/lookup', { ...AUTH, fields: TOKEN_LOOKUP_FIELDS }, (s, { body }, ctx) =>
    s.tokens.lookup(self(ctx), body.token as string | undefined),
  ),
  post('/auth/token/lookup-accessor', { ...AUTH, fields: TOKEN_ACCESSOR_FIELDS }, (s, { body }) =>
    s.tokens.lookupAccessor(body.accessor as string),
  ),
  post(
    '/auth/token/renew',
    { ...AUTH, fields: TOKEN_RENEW_OTHER_FIELDS, reply: 'auth' },
    (s, { body }) =>
      s.tokens.renew(body.token as string, body.increment as number | string | undefined),
  ),
  post(
    '/auth/token/renew-accessor',
    { ...AUTH, fields: TOKEN_RENEW_ACCESSOR_FIELDS, reply: 'auth' },
    (s, { body }) =>
      s.tokens.renewAccessor(
        body.accessor as string,
        body.increment as number | string | undefined,
      ),
  ),
  post(
    '/auth/token/revoke-accessor',
    { ...AUTH, fields: TOKEN_ACCESSOR_FIELDS, reply: 'none' },
    (s, { body }) => s.tokens.revokeAccessor(body.accessor as string),
  ),
  post(
    '/auth/token/revoke-orphan',
    { ...AUTH, fields: TOKEN_REVOKE_FIELDS, reply: 'none' },
    (s, { body }, ctx) => revokeOrphanToken(s, ctx, body.token as string),
  ),
  // --- ACL policies (legacy sys/policy, and sys/policies/acl) --------------------------
  get('/sys/policy', { ...AUTH, reply: 'legacy' }, (s) => listPolicies(s)),
  list('/sys/policy', { ...AUTH, reply: 'legacy' }, (s) => listPolicies(s)),
  get('/sys/policy/:name', { ...NAMED, reply: 'legacy' }, (s, { path }) =>
    readPolicy(s, path.name, 'rules'),
  ),
  post(
    '/sys/policy/:name',
    { ...NAMED, fields: POLICY_FIELDS, reply: 'none' },
    (s, { path, body }) => writePolicy(s, path.name, body),
  ),
  del('/sys/policy/:name', { ...NAMED, reply: 'none' }, (s, { path }) =>
    s.policies.delete(path.name),
  ),
  list('/sys/policies/acl', AUTH, (s) => s.policies.list().then((keys) => ({ keys }))),
  get('/sys/policies/acl/:name', NAMED, (s, { path }) => readPolicy(s, path.name, 'policy')),
  post(
    '/sys/policies/acl/:name',
    { ...NAMED, fields: POLICY_FIELDS, reply: 'none' },
    (s, { path, body }) => writePolicy(s, path.name, body),
  ),
  del('/sys/policies/acl/:name', { ...NAMED, reply: 'none' }, (s, { path }) =>
    s.policies.delete(path.name),
  ),
];

/**
 * A spec route not served yet, with the issue that brings its library method.
 * @internal
 */
export interface PendingRoute {
  method: 'GET' | 'POST' | 'DELETE' | 'LIST';
  path: string;
  issue: number;
  /** The library method (on `Transit`, or `leases`) whose arrival makes the row addable. */
  awaits: string;
}

/** Spec routes waiting on library methods: none since key mobility (issue 4) landed. @internal */
export const PENDING: readonly PendingRoute[] = [];
