/**
 * The dispatcher's audit steps: with an active {@link AuditBroker} behind
 * the request's services, a request entry is recorded after the token, ACL
 * and fields checks and **before the library call** (no device records it:
 * the request is refused with 500 `internal error`, nothing has run), and a
 * response entry after it, with the reply's data or the error. Without an
 * active broker the dispatcher makes one check (`served.audit?.active`) and
 * none of this runs. A request refused by the token or ACL check is logged
 * as one request entry with the error; one refused after them (its body or
 * fields, `X-Vault-Wrap-TTL`) as a request entry and a response entry with
 * the error, as Vault logs a request its backend refuses.
 *
 * Not audited, as Vault's non-audited paths: health, `sys/init`,
 * `sys/unseal`, `sys/seal-status` (the rows served while sealed).
 * `sys/seal` has its request entry only: the broker closes with the seal.
 *
 * Runtime-neutral.
 * @module
 */
import type { AclOperation, AuditBroker, AuditRequestInput, TokenContext } from 'transitkit';
import { isTransitError, TransitError } from '../../src/errors.js';
import type { HttpRequest } from './dispatch.js';
import type { Route } from './route.js';

/** An audited request between its two entries. @internal */
export interface AuditTrail {
  readonly broker: AuditBroker;
  readonly input: AuditRequestInput;
  readonly route: Route;
}

/** What the dispatcher knows when the request entry is due. @internal */
export interface AuditStart {
  requestId: string;
  route: Route;
  operation: AclOperation;
  /** The ACL path (relative to the API prefix); its first segment(s) name the mount. */
  aclPath: string;
  /** The transit mount's ACL path (`transit`, or `kms` for a `/v1/kms` mount). */
  transitMount: string;
  token: TokenContext | undefined;
  data: Record<string, unknown>;
  req: HttpRequest;
}

const isTransitRow = (r: Route) => r.path === '/transit' || r.path.startsWith('/transit/');

function mountOf(s: AuditStart): { mountPoint: string; mountType: string } {
  if (isTransitRow(s.route)) return { mountPoint: `${s.transitMount}/`, mountType: 'transit' };
  if (s.route.path.startsWith('/auth/token'))
    return { mountPoint: 'auth/token/', mountType: 'token' };
  return { mountPoint: 'sys/', mountType: 'system' };
}

/** True for a row whose requests are not audited. @internal */
export const notAudited = (route: Route): boolean => route.whileSealed;

/**
 * `sys/seal`: its request entry is written before the seal (as Vault: with
 * no device able to record it the node is not sealed), its response entry
 * never (the audit devices close with the seal).
 */
const requestOnly = (route: Route): boolean => route.path === '/sys/seal';

function requestInput(broker: AuditBroker, s: AuditStart): AuditRequestInput {
  return {
    id: s.requestId,
    operation: s.operation,
    ...mountOf(s),
    path: s.aclPath,
    data: s.data,
    ...(s.req.remoteAddress === undefined ? {} : { remoteAddress: s.req.remoteAddress }),
    ...(s.req.remotePort === undefined ? {} : { remotePort: s.req.remotePort }),
    ...(s.token === undefined ? {} : { token: s.token }),
    time: broker.clock.now(),
  };
}

/**
 * A request refused by the token or ACL check is logged as a request entry
 * with `error: "permission denied"` (as Vault), on a best-effort basis: the
 * refusal is the answer either way. Returns `error` rejected, for
 * `.catch(...)` on the checks.
 * @internal
 */
export async function auditRefused(
  broker: AuditBroker | undefined,
  s: Omit<AuditStart, 'operation' | 'data'>,
  error: unknown,
): Promise<never> {
  if (broker?.active && !notAudited(s.route) && isTransitError(error, 'permission_denied')) {
    const cap = s.route.cap;
    const operation = cap === null || cap === 'create|update' ? 'update' : cap;
    const input = requestInput(broker, { ...s, operation, data: {} });
    await broker.logRequest({ ...input, error: error.message }).catch(() => undefined);
  }
  throw error;
}

/**
 * A request refused after the token and ACL checks but before the call (a
 * body or field the route refuses, `X-Vault-Wrap-TTL`): its request entry,
 * then a response entry with the error, as Vault logs a request its backend
 * refuses. Best effort, as {@link auditRefused}: the refusal is the answer
 * either way, and nothing has run.
 * @internal
 */
export async function auditInvalid(
  broker: AuditBroker,
  s: AuditStart,
  error: unknown,
): Promise<void> {
  if (!isTransitError(error) || error.code === 'internal') return;
  try {
    await auditError(await auditRequest(broker, s), error);
  } catch {
    // Best effort (see above).
  }
}

/**
 * Record the request entry.
 * @returns the trail for {@link auditResponse}.
 * @throws TransitError `internal` when no device recorded it (fail closed).
 * @internal
 */
export async function auditRequest(broker: AuditBroker, s: AuditStart): Promise<AuditTrail> {
  const input = requestInput(broker, s);
  await broker.logRequest(input);
  return { broker, input, route: s.route };
}

/**
 * Record the response entry of a call that returned `result`.
 * @throws TransitError `internal` when no device recorded it.
 * @internal
 */
export async function auditResponse(trail: AuditTrail, result: unknown): Promise<void> {
  if (requestOnly(trail.route)) return;
  const kind = trail.route.reply;
  const time = trail.broker.clock.now();
  const withData = kind !== 'none' && kind !== 'revoke' && result !== undefined && result !== null;
  const response =
    kind === 'auth' && withData
      ? { auth: result as Record<string, unknown>, time }
      : withData
        ? { data: result, time }
        : { time };
  return trail.broker.logResponse(trail.input, response);
}

/**
 * Record the response entry of a call that failed with `error` (its message
 * when it is a {@link TransitError}; `internal error` otherwise, as the reply).
 * @throws TransitError `internal` when no device recorded it.
 * @internal
 */
export async function auditError(trail: AuditTrail, error: unknown): Promise<void> {
  if (requestOnly(trail.route)) return;
  const message =
    error instanceof TransitError && error.code !== 'internal' ? error.message : 'internal error';
  return trail.broker.logResponse(trail.input, {
    error: message,
    time: trail.broker.clock.now(),
  });
}
