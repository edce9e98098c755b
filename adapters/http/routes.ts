/**
 * THE route table: one row per route of spec/transit-service.md, in the
 * spec's order, then the token and policy routes Vault clients need.
 *
 * Paths are relative to `/v1`; `/transit` stands for the mount (configurable).
 * Capabilities default by method (GET read, POST update, DELETE delete, LIST
 * list); a row says otherwise where it differs. Each row is one library call.
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
  LeaseDuration,
  RestoreRequest,
  SetCertificateRequest,
  SignCsrRequest,
} from 'transitkit';
import {
  health,
  keyExists,
  leaseIdOf,
  listIrrevocable,
  listPolicies,
  readPolicy,
  restoreTarget,
  self,
  writePolicy,
} from './calls.js';
import { del, type Fields, get, list, post, type Route } from './route.js';

const S = 'string';
const CREATE: Fields = {
  type: S,
  derived: 'bool',
  convergent_encryption: 'bool',
  exportable: 'bool',
  allow_plaintext_backup: 'bool',
  key_size: 'int',
  auto_rotate_period: 'duration',
};
const CONFIG: Fields = {
  min_decryption_version: 'int',
  min_encryption_version: 'int',
  deletion_allowed: 'bool',
  exportable: 'bool',
  allow_plaintext_backup: 'bool',
  auto_rotate_period: 'duration',
};
const MATERIAL: Fields = { ciphertext: S, hash_function: S, public_key: S };
const IMPORT_VERSION: Fields = { ...MATERIAL, version: 'int' };
const IMPORT: Fields = {
  ...MATERIAL,
  type: S,
  allow_rotation: 'bool',
  derived: 'bool',
  context: S,
  exportable: 'bool',
  allow_plaintext_backup: 'bool',
  auto_rotate_period: 'duration',
  convergent_encryption: 'bool',
};
const ITEM: Fields = {
  context: S,
  associated_data: S,
  nonce: S,
  reference: S,
  batch_input: 'array',
};
const ENCRYPT: Fields = {
  ...ITEM,
  plaintext: S,
  key_version: 'int',
  type: S,
  convergent_encryption: 'bool',
  partial_failure_response_code: 'int',
};
const DECRYPT: Fields = { ...ITEM, ciphertext: S, partial_failure_response_code: 'int' };
const REWRAP: Fields = { ...ITEM, ciphertext: S, key_version: 'int' };
const DATAKEY: Fields = {
  context: S,
  associated_data: S,
  nonce: S,
  bits: 'int',
  key_version: 'int',
};
const HMAC: Fields = {
  input: S,
  algorithm: S,
  key_version: 'int',
  reference: S,
  batch_input: 'array',
};
const SIGNATURE: Fields = {
  input: S,
  hash_algorithm: S,
  algorithm: S,
  context: S,
  reference: S,
  batch_input: 'array',
  prehashed: 'bool',
  signature_algorithm: S,
  marshaling_algorithm: S,
  salt_length: S,
};
const SIGN: Fields = { ...SIGNATURE, key_version: 'int' };
const VERIFY: Fields = { ...SIGNATURE, signature: S, hmac: S };
const TOKEN_CREATE: Fields = {
  policies: 'strings',
  ttl: 'duration',
  explicit_max_ttl: 'duration',
  renewable: 'bool',
  num_uses: 'int',
  display_name: S,
  meta: 'map',
  no_default_policy: 'bool',
  no_parent: 'bool',
};
const POLICY: Fields = { policy: S, rules: S };
const AUTH = { needsAuth: true } as const;
const LEASES = { needsLeases: true } as const;
const RENEW: Fields = { lease_id: S, increment: 'duration' };
const REVOKE: Fields = { lease_id: S, sync: 'bool' };
const COUNT: Fields = { type: S, include_child_namespaces: 'bool' };
/** The ACL path names the algorithm even when the body gives it (see auth.ts `aclTail`). */
const ALGORITHM = { algorithm: ['algorithm'] };
const HASH_ALGORITHM = { hash_algorithm: ['hash_algorithm', 'algorithm'] };

/** Every served route. @internal */
export const ROUTES: readonly Route[] = [
  // --- Key management ------------------------------------------------------------------
  post('/transit/keys/:name', { fields: CREATE }, (s, { path, body }) =>
    s.transit.createKey(path.name, body),
  ),
  post('/transit/keys/:name/import', { fields: IMPORT, reply: 'none' }, (s, { path, body }) =>
    s.transit.importKey(path.name, body as unknown as ImportKeyRequest),
  ),
  post(
    '/transit/keys/:name/import_version',
    { fields: IMPORT_VERSION, reply: 'none' },
    (s, { path, body }) => s.transit.importKeyVersion(path.name, body),
  ),
  get('/transit/wrapping_key', {}, (s) => s.transit.getWrappingKey()),
  get('/transit/keys/:name', { fields: { context: S } }, (s, { path, body }) =>
    s.transit.readKey(path.name, body),
  ),
  list('/transit/keys', { fields: { after: S, limit: 'int' } }, (s, { body }) =>
    s.transit.listKeys(body),
  ),
  del('/transit/keys/:name', { reply: 'none' }, (s, { path }) => s.transit.deleteKey(path.name)),
  post('/transit/keys/:name/config', { fields: CONFIG }, (s, { path, body }) =>
    s.transit.updateKeyConfig(path.name, body),
  ),
  post('/transit/keys/:name/rotate', {}, (s, { path }) => s.transit.rotateKey(path.name)),
  del('/transit/keys/:name/soft-delete', {}, (s, { path }) => s.transit.softDeleteKey(path.name)),
  post('/transit/keys/:name/soft-delete-restore', {}, (s, { path }) =>
    s.transit.restoreSoftDeletedKey(path.name),
  ),
  post(
    '/transit/keys/:name/trim',
    { fields: { min_available_version: 'int' } },
    (s, { path, body }) => s.transit.trimKey(path.name, body),
  ),
  get(
    '/transit/byok-export/:destination/:source(/:version)',
    { fields: { hash: S } },
    (s, { path, body }) =>
      s.transit.byokExport(path.destination, path.source, { ...body, version: path.version }),
  ),
  get(
    '/transit/export/:key_type/:name(/:version)',
    { fields: { format: S } },
    (s, { path, body }) =>
      s.transit.exportKey(path.key_type as ExportKeyType, path.name, path.version, body),
  ),
  get('/transit/backup/:name', {}, (s, { path }) => s.transit.backupKey(path.name)),
  post(
    '/transit/restore(/:name)',
    {
      fields: { backup: S, name: S, force: 'bool' },
      reply: 'none',
      aclFromBody: { name: ['name'] },
      fillBody: restoreTarget,
    },
    (s, { body }) => s.transit.restoreKey(body as unknown as RestoreRequest),
  ),
  post('/transit/keys/:name/csr', { fields: { version: S, csr: S } }, (s, { path, body }) =>
    s.transit.signCsr(path.name, body as SignCsrRequest),
  ),
  post(
    '/transit/keys/:name/set-certificate',
    { fields: { version: S, certificate_chain: S } },
    (s, { path, body }) =>
      s.transit.setCertificate(path.name, body as unknown as SetCertificateRequest),
  ),
  // --- Global configuration ------------------------------------------------------------
  post('/transit/config/keys', { fields: { disable_upsert: 'bool' } }, (s, { body }) =>
    s.transit.writeKeysConfig(body),
  ),
  get('/transit/config/keys', {}, (s) => s.transit.readKeysConfig()),
  post('/transit/cache-config', { fields: { size: 'int' } }, (s, { body }) =>
    s.transit.writeCacheConfig(body),
  ),
  get('/transit/cache-config', {}, (s) => s.transit.readCacheConfig()),
  // --- Data operations -----------------------------------------------------------------
  post(
    '/transit/encrypt/:name',
    { cap: 'create|update', exists: keyExists, fields: ENCRYPT, batchStatus: true },
    (s, { path, body }, ctx) =>
      s.transit.encrypt(path.name, body, { upsert: ctx.operation === 'create' }),
  ),
  post('/transit/decrypt/:name', { fields: DECRYPT, batchStatus: true }, (s, { path, body }) =>
    s.transit.decrypt(path.name, body),
  ),
  post('/transit/rewrap/:name', { fields: REWRAP }, (s, { path, body }) =>
    s.transit.rewrap(path.name, body),
  ),
  post('/transit/datakey/:type/:name', { fields: DATAKEY }, (s, { path, body }) =>
    s.transit.generateDataKey(
      path.name,
      path.type as 'plaintext' | 'wrapped',
      body as DataKeyRequest,
    ),
  ),
  post(
    '/transit/random(/:source)(/:bytes)',
    { fields: { bytes: 'int', format: S, source: S } },
    (s, { body }) => s.transit.randomBytes(body),
  ),
  post(
    '/transit/hash(/:algorithm)',
    { fields: { input: S, algorithm: S, format: S }, aclFromBody: ALGORITHM },
    (s, { body }) => s.transit.hash(body),
  ),
  post(
    '/transit/hmac/:name(/:algorithm)',
    { fields: HMAC, aclFromBody: ALGORITHM },
    (s, { path, body }) => s.transit.hmac(path.name, body),
  ),
  post(
    '/transit/sign/:name(/:hash_algorithm)',
    { fields: SIGN, aclFromBody: HASH_ALGORITHM },
    (s, { path, body }) => s.transit.sign(path.name, body),
  ),
  post(
    '/transit/verify/:name(/:hash_algorithm)',
    { fields: VERIFY, aclFromBody: HASH_ALGORITHM },
    (s, { path, body }) => s.transit.verify(path.name, body),
  ),
  // --- Lease management ----------------------------------------------------------------
  post('/sys/leases/lookup', { ...LEASES, fields: { lease_id: S } }, (s, { body }) =>
    s.leases.lookup(body.lease_id as string),
  ),
  list('/sys/leases/lookup/:prefix', { ...LEASES, sudo: true, greedy: 'prefix' }, (s, { path }) =>
    s.leases.list(path.prefix),
  ),
  post('/sys/leases/renew', { ...LEASES, fields: RENEW, reply: 'lease' }, (s, { path, body }) =>
    s.leases.renew(leaseIdOf(path, body), body.increment as LeaseDuration | undefined),
  ),
  post('/sys/leases/revoke', { ...LEASES, fields: REVOKE, reply: 'revoke' }, (s, { path, body }) =>
    s.leases.revoke(leaseIdOf(path, body), { sync: body.sync as boolean | undefined }),
  ),
  post(
    '/sys/leases/revoke-force/:prefix',
    { ...LEASES, sudo: true, greedy: 'prefix', reply: 'none' },
    (s, { path }) => s.leases.revokeForce(path.prefix),
  ),
  post(
    '/sys/leases/revoke-prefix/:prefix',
    { ...LEASES, sudo: true, greedy: 'prefix', fields: { sync: 'bool' }, reply: 'revoke' },
    (s, { path, body }) =>
      s.leases.revokePrefix(path.prefix, { sync: body.sync as boolean | undefined }),
  ),
  post('/sys/leases/tidy', { ...LEASES, reply: 'accepted' }, (s) => s.leases.tidy()),
  get('/sys/leases/count', { ...LEASES, fields: COUNT }, (s, { body }) =>
    s.leases.count({ type: body.type as 'irrevocable' }),
  ),
  get('/sys/leases', { ...LEASES, sudo: true, fields: { ...COUNT, limit: S } }, (s, { body }) =>
    listIrrevocable(s, body),
  ),
  // Vault's path forms of renew and revoke: the lease id as trailing segments (body wins).
  post(
    '/sys/leases/renew/:url_lease_id',
    { ...LEASES, fields: RENEW, reply: 'lease', greedy: 'url_lease_id' },
    (s, { path, body }) =>
      s.leases.renew(leaseIdOf(path, body), body.increment as LeaseDuration | undefined),
  ),
  post(
    '/sys/leases/revoke/:url_lease_id',
    { ...LEASES, fields: REVOKE, reply: 'revoke', greedy: 'url_lease_id' },
    (s, { path, body }) =>
      s.leases.revoke(leaseIdOf(path, body), { sync: body.sync as boolean | undefined }),
  ),
  // --- Health --------------------------------------------------------------------------
  get('/sys/health', { cap: null, head: true, reply: 'health' }, (s) => health(s)),
  // --- Tokens (Vault's token store) ----------------------------------------------------
  post('/auth/token/create', { ...AUTH, fields: TOKEN_CREATE, reply: 'auth' }, (s, { body }, ctx) =>
    s.tokens.create(self(ctx), body),
  ),
  get('/auth/token/lookup-self', AUTH, (s, _, ctx) => s.tokens.lookupSelf(self(ctx))),
  post(
    '/auth/token/renew-self',
    { ...AUTH, fields: { increment: 'duration' }, reply: 'auth' },
    (s, { body }, ctx) =>
      s.tokens.renewSelf(self(ctx), body.increment as number | string | undefined),
  ),
  post('/auth/token/revoke-self', { ...AUTH, reply: 'none' }, (s, _, ctx) =>
    s.tokens.revokeSelf(self(ctx)),
  ),
  post('/auth/token/revoke', { ...AUTH, fields: { token: S }, reply: 'none' }, (s, { body }) =>
    s.tokens.revoke(body.token as string),
  ),
  // --- ACL policies (legacy sys/policy, and sys/policies/acl) --------------------------
  get('/sys/policy', { ...AUTH, reply: 'legacy' }, (s) => listPolicies(s)),
  list('/sys/policy', { ...AUTH, reply: 'legacy' }, (s) => listPolicies(s)),
  get('/sys/policy/:name', { ...AUTH, reply: 'legacy' }, (s, { path }) =>
    readPolicy(s, path.name, 'rules'),
  ),
  post('/sys/policy/:name', { ...AUTH, fields: POLICY, reply: 'none' }, (s, { path, body }) =>
    writePolicy(s, path.name, body),
  ),
  del('/sys/policy/:name', { ...AUTH, reply: 'none' }, (s, { path }) =>
    s.policies.delete(path.name),
  ),
  list('/sys/policies/acl', AUTH, (s) => s.policies.list().then((keys) => ({ keys }))),
  get('/sys/policies/acl/:name', AUTH, (s, { path }) => readPolicy(s, path.name, 'policy')),
  post('/sys/policies/acl/:name', { ...AUTH, fields: POLICY, reply: 'none' }, (s, { path, body }) =>
    writePolicy(s, path.name, body),
  ),
  del('/sys/policies/acl/:name', { ...AUTH, reply: 'none' }, (s, { path }) =>
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
