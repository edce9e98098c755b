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
import { type AclLike, aclNow, authenticateNow } from '../../src/auth/answer-now.js';
import { invalidRequest, TransitError } from '../../src/errors.js';
import type { Route, Services } from './route.js';

/** Header lookup by lower-case name. @public */
export type HeaderLookup = (name: string) => string | undefined;

/** The presented token, if any. @internal */
export function tokenFrom(headers: HeaderLookup): string | undefined {
  // An empty header is no token: the next one is looked at.
  const service = headers('x-service-token')?.trim();
  const direct = service ? service : headers('x-vault-token')?.trim();
  if (direct) return direct;
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
export function authenticate(
  services: Services,
  route: Route,
  headers: HeaderLookup,
  auth: boolean,
): TokenContext | undefined | Promise<TokenContext | undefined> {
  if (route.cap === null || !auth) return undefined;
  const presented = tokenFrom(headers);
  if (presented === undefined || !services.tokens) throw denied();
  // No promise when the token's entry is cached (token-store.ts).
  const token = authenticateNow(services.tokens, presented);
  return token instanceof Promise ? token.then(known) : known(token);
}

const known = (token: TokenContext | undefined): TokenContext => {
  if (!token) throw denied();
  return token;
};

/**
 * The ACL operation a request runs as, checked against the token's policies.
 * @param aclPath - the request path relative to `/v1` (no leading slash)
 * @throws TransitError `permission_denied`.
 * @internal
 */
export function authorize(
  services: Services,
  route: Route,
  params: Readonly<Record<string, string>>,
  aclPath: string,
  token: TokenContext | undefined,
): AclOperation | Promise<AclOperation> {
  const upsert = route.cap === 'create|update';
  if (route.cap === null) return 'read';
  if (!token) return upsert ? 'create' : (route.cap as AclOperation);
  if (!services.policies) throw denied();
  // No promise when the compiled ACL is cached (acl-policies.ts).
  const acl = aclNow(services.policies, token.policies);
  return acl instanceof Promise
    ? acl.then((a) => allowed(services, route, params, aclPath, a))
    : allowed(services, route, params, aclPath, acl);
}

/**
 * {@link authorize} for a row whose body completed its ACL path with a value
 * that only narrows it (`aclUrlGrants`: an algorithm): a `deny` deciding the
 * completed path, and not every completion of it, refuses
 * (`transit/sign/+/sha1`), else a grant on the completed path or on the URL
 * path suffices (Vault checks only the URL, so
 * a policy on `transit/sign/ec` lets hvac's `hash_algorithm` in the body
 * through).
 * @throws TransitError `permission_denied`.
 * @internal
 */
export async function authorizeNarrowed(
  services: Services,
  route: Route,
  params: Readonly<Record<string, string>>,
  urlPath: string,
  fullPath: string,
  token: TokenContext | undefined,
): Promise<AclOperation> {
  if (!token || route.cap === null || !services.policies) {
    return authorize(services, route, params, fullPath, token);
  }
  const acl = await aclNow(services.policies, token.policies);
  // A deny whose rule decides this completion but not every completion (a
  // segment no policy can name stands for "any other"; each rule has its own
  // capability set) is about this value: `transit/sign/+/sha1`. One whose rule
  // decides every completion (`transit/*`) says no more than the URL path's
  // own rules, and there, as in Vault, the most specific rule of the URL path
  // decides (`transit/sign/ec` exact).
  const decided = acl.capabilities(fullPath);
  if (decided.has('deny') && decided !== acl.capabilities(`${urlPath}/\u0000`)) throw denied();
  try {
    return await authorize(services, route, params, fullPath, token);
  } catch (e) {
    if (!(e instanceof TransitError) || e.code !== 'permission_denied') throw e;
    return authorize(services, route, params, urlPath, token);
  }
}

/** The operation `acl` lets the request run as. @throws TransitError `permission_denied`. */
function allowed(
  services: Services,
  route: Route,
  params: Readonly<Record<string, string>>,
  aclPath: string,
  acl: AclLike,
): AclOperation | Promise<AclOperation> {
  const upsert = route.cap === 'create|update';
  if (!upsert) {
    if (!acl.allows(aclPath, route.cap as AclOperation, route.sudo)) throw denied();
    return route.cap as AclOperation;
  }
  const canCreate = acl.allows(aclPath, 'create', route.sudo);
  const canUpdate = acl.allows(aclPath, 'update', route.sudo);
  if (canCreate && canUpdate) return 'create';
  if (!canCreate && !canUpdate) throw denied();
  if (!route.exists) return upsertOperation(false, canCreate, canUpdate);
  return route.exists(services, params).then((e) => upsertOperation(e, canCreate, canUpdate));
}

/** An upsert row's operation once the resource's existence is known (reference §14). */
function upsertOperation(exists: boolean, canCreate: boolean, canUpdate: boolean): AclOperation {
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
