/**
 * The shape of one row of the route table (routes.ts), and the `get`, `post`,
 * `del`, `list` helpers that build rows.
 *
 * A row is data: method, path pattern in the spec's notation (relative to
 * `/v1`, with `/transit` standing for the mount; `:x` a parameter; `( )` an
 * optional part), the ACL capability, an optional existence check (openbao's
 * `ExistenceCheck`: it decides `create` vs `update`), the field schema, how the
 * reply is shaped, and one call into the library. No logic lives in rows.
 *
 * Runtime-neutral (no `node:*`).
 * @module
 */
import type {
  AclOperation,
  AclPolicyStore,
  AuditBroker,
  LeaseManager,
  TokenContext,
  TokenStore,
  Transit,
  TransitNode,
} from 'transitkit';
import { type EndpointSchema, type FieldType, NO_FIELDS } from '../../src/schema.js';
import type { HealthSource } from './health.js';
import type { MetricsExporter } from './metrics.js';
import { compileFields, type FieldParser } from './params.js';

/** The methods rows are declared with (PUT is POST; HEAD is GET where a row allows it). */
export type RouteMethod = 'GET' | 'POST' | 'DELETE' | 'LIST';

export type { FieldType } from '../../src/schema.js';

/** A route's accepted fields: name → type (derived from its endpoint schema). @public */
export type Fields = Readonly<Record<string, FieldType>>;

/**
 * How a result becomes a response: `data` 200 + envelope (204 when there is no
 * result); `none` 204; `list` 200, or 404 `{"errors":[]}` when empty; `auth` the
 * envelope's `auth` block; `legacy` data copied to the top level as well (old
 * `sys/policy` clients); `lease` the lease fields at the top level (renew);
 * `revoke` 204, or 202 when `sync` is false; `accepted` 202 with the envelope
 * and Vault's tidy warning; `health` status from the query codes; `raw` the
 * result itself as the body, without the envelope (`sys/init`, `sys/unseal`,
 * `sys/seal-status`, as Vault); `text` a body with its own content type (the
 * result is a `TextResult`: `sys/metrics`, Prometheus text or Vault's JSON).
 */
export type ReplyKind =
  | 'data'
  | 'none'
  | 'list'
  | 'auth'
  | 'legacy'
  | 'lease'
  | 'revoke'
  | 'accepted'
  | 'health'
  | 'raw'
  | 'text';

/**
 * What the handler serves. `tokens` and `policies` are required unless the
 * handler is created with `auth: false`; `health` defaults to "initialized,
 * unsealed, active".
 * @public
 */
export interface Services {
  transit: Transit;
  tokens?: TokenStore;
  policies?: AclPolicyStore;
  /** Serves `/v1/sys/leases/*` when given. */
  leases?: LeaseManager;
  /**
   * Audit devices (`/v1/sys/audit*`), when given: every request and response
   * is recorded on its devices (a `TransitNode` has its own).
   */
  audit?: AuditBroker;
  health?: HealthSource;
}

/**
 * Services after the dispatcher checked a row's `needs`. `node` is there for
 * `needsNode` rows (the handler serves a {@link TransitNode}); rows served
 * while sealed (`whileSealed`) get only `node` and `health`.
 * @internal
 */
export type ServedBy = Services & {
  tokens: TokenStore;
  policies: AclPolicyStore;
  leases: LeaseManager;
  node: TransitNode;
  audit: AuditBroker;
};

/** What a row's call receives besides the services. @internal */
export interface CallContext {
  /** The ACL operation the request was authorised for (`create` or `update` on upsert rows). */
  operation: AclOperation;
  /** The authenticated token (absent when the handler runs with `auth: false`). */
  token: TokenContext | undefined;
  /** The handler's metrics (`needsMetrics` rows only; metrics.ts). */
  metrics?: MetricsExporter;
}

type Before<P extends string> = P extends `${infer A}(${string}` ? A : P;
type After<P extends string> = P extends `${string}(${infer B}` ? B : '';
type Clean<N extends string> = N extends `${infer X})${string}` ? X : N;
type Names<P extends string> = P extends `${string}:${infer Rest}`
  ? Rest extends `${infer N}/${infer T}`
    ? Clean<N> | Names<T>
    : Clean<Rest>
  : never;

/** Path parameters of a pattern: required ones, and optional ones from `( )` parts. @internal */
export type PathParams<P extends string> = { readonly [K in Names<Before<P>>]: string } & {
  readonly [K in Names<After<P>>]?: string;
};

/** A row's input: decoded path parameters and the coerced, schema-filtered fields. @internal */
export interface Input<P extends string = string> {
  path: PathParams<P>;
  body: Record<string, unknown>;
}

/** One row of the table. @internal */
export interface Route {
  method: RouteMethod;
  /** Spec notation, relative to `/v1`; `/transit` is the mount. */
  path: string;
  /** ACL capability; `create|update` needs `exists`; `null` = no token. */
  cap: AclOperation | 'create|update' | null;
  /** Also requires `sudo`. */
  sudo: boolean;
  /** Existence check for `create|update` rows. */
  exists: ((s: Services, path: Readonly<Record<string, string>>) => Promise<boolean>) | undefined;
  /** The endpoint schema of the row (`src/transit/<endpoint>.ts`, or sys-fields.ts). */
  schema: EndpointSchema;
  /** The schema's field types by name (the router reads `int` path parameters from it). */
  fields: Fields;
  /** The fields' parser, compiled from {@link Route.schema} once, when the row is built. */
  parse: FieldParser;
  reply: ReplyKind;
  /** Vault's encrypt/decrypt batch status rule applies. */
  batchStatus: boolean;
  /** HEAD is answered too (health). */
  head: boolean;
  /** The row needs the token and policy stores. */
  needsAuth: boolean;
  /**
   * The last segment of the ACL path is lower-cased: the call lower-cases that
   * name (policy names, as Vault), so `sys/policy/Admin` is checked as the
   * `sys/policy/admin` it acts on, and an exact deny on it holds.
   */
  aclLowerCase: boolean;
  /**
   * Where (a segment index below the transit mount) the ACL path holds a key
   * version the call reads as a number (`vN`, `+N`, `0N` all name version N,
   * as in Vault): it is checked as `N`, so an exact deny on `…/k/1` holds for
   * every spelling of it.
   */
  aclVersionAt?: number;
  /**
   * A trailing `/` of the request path stays on the ACL path (dropped
   * elsewhere): a prefix route (`revoke-prefix/db/`) is checked as Vault checks
   * it, so a rule on `…/revoke-prefix/db/*` grants it and one on `…/db` alone
   * does not.
   */
  aclKeepsSlash: boolean;
  /** The row needs the lease manager. */
  needsLeases: boolean;
  /** The row needs the audit broker (a node's, or `services.audit`). */
  needsAudit: boolean;
  /** The row needs a {@link TransitNode} (the seal routes). */
  needsNode: boolean;
  /** The row needs the handler's `metrics` (`sys/metrics`; else 404). */
  needsMetrics: boolean;
  /** Served while sealed or uninitialised (health and the seal routes); no other service is used. */
  whileSealed: boolean;
  /** A parameter that takes the rest of the path, `/` included (lease prefixes). */
  greedy: string | undefined;
  /** Undeclared fields are ignored even in `reject` mode (health, as Vault's handler). */
  ignoreUnknown: boolean;
  /**
   * A raw handler of Vault's (health, init, unseal, seal-status, leader):
   * another method on this path is a bare 405 `{"errors":[]}`, and `?list=`
   * is ignored (a GET stays a GET). Default for `health` and `raw` rows.
   */
  bareMethodError: boolean;
  /**
   * A `not_found` from this row keeps its message on a GET too (`{"errors":
   * ["no such source key for export"]}`), where a read's miss is otherwise
   * Vault's bare 404: the rows whose misses Vault answers with a text (as a
   * 500; reference README: a 404 with Vault's message here).
   */
  notFoundMessage: boolean;
  /**
   * Optional trailing path parameter → body fields that name it too; the ACL
   * path is completed from the body when the URL leaves it out.
   */
  aclFromBody: Readonly<Record<string, readonly string[]>>;
  /**
   * The body's completion of the ACL path only narrows (an algorithm): a grant
   * on the URL path suffices, as Vault checks only the URL, and a `deny`
   * deciding the completed path still refuses (`transit/sign/+/sha1`). Else
   * (restore's name) the completed path alone decides.
   */
  aclUrlGrants: boolean;
  /**
   * Fills body fields the ACL path depends on, after the fields are parsed and
   * before the ACL check (restore: the name inside the blob).
   */
  fillBody: ((body: Record<string, unknown>) => void) | undefined;
  /**
   * A streaming row (stream-routes.ts): its fields come from the query, the
   * body is a byte stream piped through the `TransformStream` the call
   * returns, and the reply is that stream's output (stream-reply.ts).
   */
  stream: boolean;
  call: (s: ServedBy, input: Input, ctx: CallContext) => unknown;
}

/** Options of a row. @internal */
export interface RowOptions {
  cap?: Route['cap'];
  sudo?: boolean;
  exists?: Route['exists'];
  /** The endpoint schema the row's fields come from. */
  fields?: EndpointSchema;
  reply?: ReplyKind;
  batchStatus?: boolean;
  head?: boolean;
  needsAuth?: boolean;
  /** The ACL path has the last segment lower-cased (a name the call lower-cases too). */
  aclLowerCase?: boolean;
  /** See {@link Route.aclVersionAt}. */
  aclVersionAt?: number;
  /** See {@link Route.aclKeepsSlash}. */
  aclKeepsSlash?: boolean;
  needsLeases?: boolean;
  needsAudit?: boolean;
  needsNode?: boolean;
  needsMetrics?: boolean;
  whileSealed?: boolean;
  greedy?: string;
  ignoreUnknown?: boolean;
  bareMethodError?: boolean;
  notFoundMessage?: boolean;
  aclFromBody?: Readonly<Record<string, readonly string[]>>;
  aclUrlGrants?: boolean;
  fillBody?: Route['fillBody'];
  stream?: boolean;
}

const DEFAULT_CAP: Readonly<Record<RouteMethod, AclOperation>> = {
  GET: 'read',
  POST: 'update',
  DELETE: 'delete',
  LIST: 'list',
};

function row<P extends string>(
  method: RouteMethod,
  path: P,
  o: RowOptions,
  call: (s: ServedBy, input: Input<P>, ctx: CallContext) => unknown,
): Route {
  const schema: EndpointSchema = o.fields ?? NO_FIELDS;
  return {
    method,
    path,
    cap: o.cap === undefined ? DEFAULT_CAP[method] : o.cap,
    sudo: o.sudo ?? false,
    exists: o.exists,
    schema,
    fields: Object.fromEntries(schema.names.map((n) => [n, schema.fields[n]?.type as FieldType])),
    parse: compileFields(schema),
    reply: o.reply ?? (method === 'LIST' ? 'list' : 'data'),
    batchStatus: o.batchStatus ?? false,
    head: o.head ?? false,
    needsAuth: o.needsAuth ?? false,
    aclLowerCase: o.aclLowerCase ?? false,
    ...(o.aclVersionAt === undefined ? {} : { aclVersionAt: o.aclVersionAt }),
    aclKeepsSlash: o.aclKeepsSlash ?? false,
    needsLeases: o.needsLeases ?? false,
    needsAudit: o.needsAudit ?? false,
    needsNode: o.needsNode ?? false,
    needsMetrics: o.needsMetrics ?? false,
    whileSealed: o.whileSealed ?? o.reply === 'health',
    greedy: o.greedy,
    ignoreUnknown: o.ignoreUnknown ?? false,
    bareMethodError: o.bareMethodError ?? (o.reply === 'health' || o.reply === 'raw'),
    notFoundMessage: o.notFoundMessage ?? false,
    aclFromBody: o.aclFromBody ?? {},
    aclUrlGrants: o.aclUrlGrants ?? false,
    fillBody: o.fillBody,
    stream: o.stream ?? false,
    call: call as Route['call'],
  };
}

/** A GET row (capability `read` unless given). @internal */
export const get = <P extends string>(
  path: P,
  o: RowOptions,
  call: (s: ServedBy, input: Input<P>, ctx: CallContext) => unknown,
): Route => row('GET', path, o, call);

/** A POST row, also served for PUT (capability `update` unless given). @internal */
export const post = <P extends string>(
  path: P,
  o: RowOptions,
  call: (s: ServedBy, input: Input<P>, ctx: CallContext) => unknown,
): Route => row('POST', path, o, call);

/** A DELETE row (capability `delete` unless given). @internal */
export const del = <P extends string>(
  path: P,
  o: RowOptions,
  call: (s: ServedBy, input: Input<P>, ctx: CallContext) => unknown,
): Route => row('DELETE', path, o, call);

/** A LIST row, also served for `GET ?list=true` (capability `list`). @internal */
export const list = <P extends string>(
  path: P,
  o: RowOptions,
  call: (s: ServedBy, input: Input<P>, ctx: CallContext) => unknown,
): Route => row('LIST', path, o, call);
