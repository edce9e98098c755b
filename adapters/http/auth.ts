/**
 * Who may call a row: the token (header `X-Service-Token`, or Vault's
 * `X-Vault-Token`, or `Authorization: Bearer`) is resolved by the token store,
 * its policies compiled into an ACL, and the row's capability checked on the
 * request's ACL path (e.g. `transit/encrypt/orders`).
 *
 * Authentication (the token) comes first, before any body is read; the ACL
 * check follows — after the body only for rows whose ACL path can also be
 * named in the body ({@link aclTail}), and those are first refused before
 * the body when no completion of their path is allowed (preauth.ts).
 *
 * The upsert rule (reference §14): a row with an existence check needs
 * `create` when the resource is missing and `update` when it exists. The
 * check runs only when the ACL's answer differs between the two — a token
 * holding both (or root) never pays for it.
 *
 * Every refusal is the same 403 `permission denied`: a caller cannot tell a
 * missing token from a bad one or from a denied path.
 *
 * Runtime-neutral.
 * @module
 */
import type { AclOperation, TokenContext } from 'transitkit';
import { invalidRequest, TransitError } from '../../src/errors.js';
import type { Route, Services } from './route.js';

/** Header lookup by lower-case name. @public */
export type HeaderLookup = (name: string) => string | undefined;

/** The presented token, if any. @internal */
export function tokenFrom(headers: HeaderLookup): string | undefined {
  const direct = headers('x-service-token') ?? headers('x-vault-token');
  if (direct !== undefined && direct !== '') return direct.trim();
  const authz = headers('authorization');
  const m = authz === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authz);
  return m?.[1];
}

const denied = () => new TransitError('permission_denied', 'permission denied');

/**
 * Resolve the request's token (`undefined` for unauthenticated rows, or when
 * the handler runs with `auth: false`).
 * @throws TransitError `permission_denied` for a missing, unknown or expired token.
 * @internal
 */
export async function authenticate(
  services: Services,
  route: Route,
  headers: HeaderLookup,
  auth: boolean,
): Promise<TokenContext | undefined> {
  if (route.cap === null || !auth) return undefined;
  const presented = tokenFrom(headers);
  const token =
    presented === undefined || !services.tokens
      ? undefined
      : await services.tokens.authenticate(presented);
  if (!token) throw denied();
  return token;
}

/**
 * The ACL operation a request runs as, checked against the token's policies.
 * @param aclPath - the request path relative to `/v1` (no leading slash)
 * @throws TransitError `permission_denied`.
 * @internal
 */
export async function authorize(
  services: Services,
  route: Route,
  params: Readonly<Record<string, string>>,
  aclPath: string,
  token: TokenContext | undefined,
): Promise<AclOperation> {
  const upsert = route.cap === 'create|update';
  if (route.cap === null) return 'read';
  if (!token) return upsert ? 'create' : (route.cap as AclOperation);
  if (!services.policies) throw denied();
  const acl = await services.policies.acl(token.policies);
  if (!upsert) {
    if (!acl.allows(aclPath, route.cap as AclOperation, route.sudo)) throw denied();
    return route.cap as AclOperation;
  }
  const canCreate = acl.allows(aclPath, 'create', route.sudo);
  const canUpdate = acl.allows(aclPath, 'update', route.sudo);
  if (canCreate && canUpdate) return 'create';
  if (!canCreate && !canUpdate) throw denied();
  const exists = route.exists ? await route.exists(services, params) : false;
  if (exists ? !canUpdate : !canCreate) throw denied();
  return exists ? 'update' : 'create';
}

/**
 * Extra ACL path segments for a row whose optional trailing path parameters
 * may also come from the body (`aclFromBody`): the request is checked as if
 * it had used the path form, so `deny` on `transit/verify/+/sha1` also holds
 * for `{"hash_algorithm": "sha1"}` in the body (Vault checks only the URL),
 * and a restore is checked on the name it writes (the row's `fillBody` puts
 * the blob's name in the body when neither URL nor body gives one).
 * @throws TransitError `invalid_request` for a value holding `/` (it must stay one segment).
 * @internal
 */
export function aclTail(
  route: Route,
  params: Readonly<Record<string, string>>,
  body: Readonly<Record<string, unknown>>,
): string[] {
  const extra: string[] = [];
  for (const [param, fields] of Object.entries(route.aclFromBody)) {
    if (params[param] !== undefined) continue;
    const v = fields.map((f) => body[f]).find((x) => typeof x === 'string' && x !== '');
    if (v === undefined) break;
    // One path segment: `a/../b` must not reach a different rule than the library's target.
    if ((v as string).includes('/')) throw invalidRequest(`'${param}' cannot contain '/'`);
    extra.push(v as string);
  }
  return extra;
}
