/**
 * The few named helpers route rows call besides the library itself: the
 * encrypt existence check, the authenticated token of a self-service route,
 * and the two shapes of a policy read (`sys/policy` says `rules`,
 * `sys/policies/acl` says `policy`). Kept here so rows stay one call each.
 *
 * Runtime-neutral.
 * @module
 */
import type { TokenContext } from 'transitkit';
import { notFound, TransitError } from '../../src/errors.js';
import { ACTIVE, type HealthState } from './health.js';
import type { CallContext, ServedBy, Services } from './route.js';

/**
 * Encrypt's existence check (openbao `pathEncryptExistenceCheck`): does the
 * key exist? A name the library refuses counts as missing; the call then
 * fails with the library's message.
 * @internal
 */
export async function keyExists(
  s: Services,
  path: Readonly<Record<string, string>>,
): Promise<boolean> {
  try {
    await s.transit.readKey(path.name ?? '');
    return true;
  } catch (e) {
    if (e instanceof TransitError) return false;
    throw e;
  }
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
 * the path form's trailing id (the body wins, as Vault).
 * @internal
 */
export function leaseIdOf(
  path: { readonly url_lease_id?: string },
  body: Readonly<Record<string, unknown>>,
): string {
  return (body.lease_id ?? path.url_lease_id ?? '') as string;
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
