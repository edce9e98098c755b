/**
 * The few named helpers route rows call besides the library itself: the
 * encrypt existence check, the authenticated token of a self-service route,
 * the two shapes of a policy read (`sys/policy` says `rules`,
 * `sys/policies/acl` says `policy`), and `sys/init`'s refusal of PGP
 * options. Kept here so rows stay one call each.
 *
 * Runtime-neutral.
 * @module
 */
import type { TokenAuth, TokenContext, TokenCreateRequest } from 'transitkit';
import { aclNow } from '../../src/auth/answer-now.js';
import { invalidRequest, notFound, TransitError } from '../../src/errors.js';
import { checkKeyName } from '../../src/keys/names.js';
import { backupKeyName } from '../../src/keys/vault-backup.js';
import { warningsOf, withWarnings } from '../../src/result-meta.js';
import { ACTIVE, type HealthState } from './health.js';
import type { CallContext, ServedBy, Services } from './route.js';

/**
 * Encrypt's existence check (openbao `pathEncryptExistenceCheck`): does the
 * key exist? Only a key the library reports missing (`not_found`), or a
 * name it refuses (the call then fails with the library's message), counts
 * as missing. Any other failure (a storage read that failed) is thrown: the
 * check fails closed, so a token holding only `create` is never let through
 * as if the key were new when the read that would have found it failed.
 * @internal
 */
export async function keyExists(
  s: Services,
  path: Readonly<Record<string, string>>,
): Promise<boolean> {
  const name = path.name ?? '';
  try {
    checkKeyName(name);
  } catch {
    return false;
  }
  try {
    await s.transit.readKey(name);
    return true;
  } catch (e) {
    if (e instanceof TransitError && e.code === 'not_found') return false;
    throw e;
  }
}

/**
 * Whether the caller has `sudo` on `path` (Vault's `SudoPrivilege`: root, or a
 * policy granting it).
 */
async function hasSudo(s: ServedBy, parent: TokenContext, path: string): Promise<boolean> {
  return parent.isRoot || (await aclNow(s.policies, parent.policies)).allows(path, 'update', true);
}

/**
 * `POST auth/token/create` and `auth/token/create-orphan`, with whether the
 * caller has `sudo` on that path, which lets it create orphans and hand out
 * policies it does not hold (`root` aside).
 * @internal
 */
export async function createToken(
  s: ServedBy,
  ctx: CallContext,
  body: TokenCreateRequest,
  orphan = false,
): Promise<TokenAuth> {
  const parent = self(ctx);
  const path = orphan ? 'auth/token/create-orphan' : 'auth/token/create';
  const made = await s.tokens.create(parent, body, {
    sudo: await hasSudo(s, parent, path),
    orphan,
  });
  return withWarnings(made, [...warningsOf(made), ...(await missingPolicies(s, made.policies))]);
}

/**
 * Vault's `Policy "x" does not exist` warning for each policy of a new token
 * that no policy document defines (`handleCreateCommon` ends with it). The
 * token exists by then, so a failed read leaves out its warning rather than
 * failing a request whose token the caller would never learn.
 */
async function missingPolicies(s: ServedBy, policies: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const name of policies) {
    const found = await s.policies.read(name).then(
      (doc) => doc !== undefined,
      () => true,
    );
    if (!found) out.push(`Policy "${name}" does not exist`);
  }
  return out;
}

/** `POST auth/token/revoke-orphan`: root or `sudo` on that path (Vault). @internal */
export async function revokeOrphanToken(
  s: ServedBy,
  ctx: CallContext,
  token: string,
): Promise<void> {
  const sudo = await hasSudo(s, self(ctx), 'auth/token/revoke-orphan');
  await s.tokens.revokeOrphan(token, { sudo });
}

/** The token of a self-service route (`auth/token/*-self`). @internal */
export function self(ctx: CallContext): TokenContext {
  if (!ctx.token) throw new TransitError('permission_denied', 'permission denied');
  return ctx.token;
}

/** `GET sys/policy/:name` (`rules`) or `sys/policies/acl/:name` (`policy`). @internal */
export async function readPolicy(
  s: ServedBy,
  name: string,
  field: 'rules' | 'policy',
): Promise<Record<string, string>> {
  const doc = await s.policies.read(name);
  if (!doc) throw notFound(`no policy named ${name}`);
  return { name: doc.name, [field]: doc.policy };
}

/** `PUT sys/policy/:name`: the text is `policy` (or the legacy `rules`). @internal */
export function writePolicy(
  s: ServedBy,
  name: string,
  body: Record<string, unknown>,
): Promise<void> {
  return s.policies.write(name, (body.policy ?? body.rules ?? '') as string);
}

/** `GET sys/policy`: every name, as `keys` and the legacy `policies`. @internal */
export async function listPolicies(s: ServedBy): Promise<{ keys: string[]; policies: string[] }> {
  const keys = await s.policies.list();
  return { keys, policies: keys };
}

/**
 * The lease id of `sys/leases/renew` and `revoke`: the body's `lease_id`, else
 * the path form's trailing id. The ACL is checked on the path, so a body that
 * names another lease than the path form is refused rather than obeyed
 * (Vault lets the body win, which lets `sys/leases/revoke/app/*` revoke any
 * lease). The ids are not echoed.
 * @throws TransitError `invalid_request` when path and body disagree.
 * @internal
 */
export function leaseIdOf(
  path: { readonly url_lease_id?: string },
  body: Readonly<Record<string, unknown>>,
): string {
  const inBody = body.lease_id;
  const inPath = path.url_lease_id;
  if (inPath !== undefined && inBody !== undefined && inBody !== '' && inBody !== inPath) {
    throw invalidRequest('lease_id in the body names another lease than the request path');
  }
  return (inBody || inPath || '') as string;
}

/**
 * `transit/restore` without a name: set `name` to the blob's, so that the ACL
 * (`aclFromBody`) is checked on `transit/restore/<that name>` and the library
 * writes exactly that name.
 * @internal
 */
export function restoreTarget(body: Record<string, unknown>): void {
  if (body.name === undefined || body.name === '') body.name = backupKeyName(body.backup);
}

/** `GET sys/leases`: only `type=irrevocable` exists (Vault answers 404 otherwise). @internal */
export function listIrrevocable(s: ServedBy, body: Readonly<Record<string, unknown>>) {
  if (body.type !== 'irrevocable') throw notFound('type must be irrevocable');
  return s.leases.listIrrevocable(body.limit === undefined ? {} : { limit: body.limit as string });
}

/** The node state for `sys/health`. @internal */
export function health(s: Services): HealthState | Promise<HealthState> {
  return (s.health ?? ACTIVE).health();
}

/** Vault's init options this node does not offer: refused when set, not ignored. */
function refuseUnsupported(body: Readonly<Record<string, unknown>>): void {
  for (const f of ['pgp_keys', 'root_token_pgp_key', 'recovery_pgp_keys'] as const) {
    const v = body[f];
    if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) {
      throw invalidRequest(`${f} is not supported`);
    }
  }
}

/** `POST sys/init`: the shares and threshold, after refusing the PGP options. @internal */
export function initNode(s: ServedBy, body: Readonly<Record<string, unknown>>) {
  refuseUnsupported(body);
  return s.node.init({
    secret_shares: body.secret_shares as number,
    secret_threshold: body.secret_threshold as number,
  });
}
