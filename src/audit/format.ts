/**
 * One audit entry in Vault's JSON shape, for one device: the common options
 * (`log_raw`, `hmac_accessor`, `elide_list_responses`, `format`, `prefix`)
 * and the line that the device writes.
 *
 * Runtime-neutral.
 * @module
 */
import { rfc3339 } from '../clock.js';
import { invalidRequest } from '../errors.js';
import { goParseBool } from '../request.js';
import { type Hasher, hashStructure, rawStructure, type TokenHashes } from './hash.js';
import type { AuditAuth, AuditEntry, AuditRequest } from './types.js';

/** The options every device type takes. @internal */
export const COMMON_OPTIONS: readonly string[] = [
  'log_raw',
  'hmac_accessor',
  'elide_list_responses',
  'format',
  'prefix',
];

/** The common options, parsed. @internal */
export interface FormatOptions {
  /** `log_raw`: nothing is hashed. */
  raw: boolean;
  /** `hmac_accessor` (default true): accessors are hashed too. */
  hmacAccessor: boolean;
  /** `elide_list_responses`: a list reply's `keys` become their count. */
  elideList: boolean;
  /** Written before each JSON line. */
  prefix: string;
}

function boolOption(options: Readonly<Record<string, string>>, name: string, dflt: boolean) {
  const v = options[name];
  if (v === undefined || v === '') return dflt;
  const b = goParseBool(v);
  if (b === undefined)
    throw invalidRequest(`options.${name} must be a boolean, got ${JSON.stringify(v)}`);
  return b;
}

/** Parse the common options. @throws TransitError `invalid_request`. @internal */
export function formatOptions(options: Readonly<Record<string, string>>): FormatOptions {
  const format = options.format ?? 'json';
  if (format !== 'json' && format !== '') {
    throw invalidRequest(`options.format must be "json", got ${JSON.stringify(format)}`);
  }
  return {
    raw: boolOption(options, 'log_raw', false),
    hmacAccessor: boolOption(options, 'hmac_accessor', true),
    elideList: boolOption(options, 'elide_list_responses', false),
    prefix: options.prefix ?? '',
  };
}

/**
 * What the HTTP layer knows of a request, before any hashing.
 * @public
 */
export interface AuditRequestInput {
  /** Request id (the reply's `request_id`). */
  id: string;
  /** `create`, `read`, `update`, `delete`, `list`. */
  operation: string;
  /** `transit/`, `sys/`, `auth/token/`. */
  mountPoint: string;
  /** `transit`, `system`, `token`. */
  mountType: string;
  /** Path relative to `/v1`. */
  path: string;
  /** The parsed fields. */
  data?: Record<string, unknown>;
  remoteAddress?: string;
  remotePort?: number;
  /** The authenticated token, if any. */
  token?: {
    readonly token: string;
    readonly accessor: string;
    readonly policies: readonly string[];
    readonly isRoot: boolean;
    /** The token store's digest of the token (a `TokenContext` has it): keys the HMAC cache. */
    readonly hash?: string;
  };
  /** Time of the request (ms). */
  time: number;
  /** A request refused before it ran (`permission denied`): written as the request entry's `error`. */
  error?: string;
}

/**
 * What the HTTP layer knows of the outcome.
 * @public
 */
export interface AuditResponseInput {
  /** The reply's data. */
  data?: unknown;
  /** A token-creating reply's `auth` block. */
  auth?: Record<string, unknown>;
  /** The error message, when the request failed. */
  error?: string;
  /** Time of the response (ms). */
  time: number;
}

const hashOr = (raw: boolean, hash: Hasher, v: string) => (raw ? v : hash(v));

/** How one device writes a token: hashed (cached per token context), or raw. */
export interface DeviceHashing {
  hash: Hasher;
  tokens: (t: NonNullable<AuditRequestInput['token']>) => TokenHashes;
}

function tokenFields(input: AuditRequestInput, o: FormatOptions, h: DeviceHashing) {
  const t = input.token;
  if (!t) return undefined;
  if (o.raw) return { token: t.token, accessor: t.accessor };
  const hashed = h.tokens(t);
  return { token: hashed.token, accessor: o.hmacAccessor ? hashed.accessor : t.accessor };
}

function authBlock(input: AuditRequestInput, o: FormatOptions, h: DeviceHashing): AuditAuth {
  const t = input.token;
  const f = tokenFields(input, o, h);
  if (!t || !f) return {};
  const policies = [...t.policies];
  return {
    client_token: f.token,
    accessor: f.accessor,
    display_name: t.isRoot ? 'root' : 'token',
    policies,
    token_policies: policies,
    token_type: 'service',
    metadata: null,
    entity_id: '',
  };
}

function requestBlock(input: AuditRequestInput, o: FormatOptions, h: DeviceHashing): AuditRequest {
  const hash = h.hash;
  const f = tokenFields(input, o, h);
  const out: AuditRequest = {
    id: input.id,
    operation: input.operation,
    mount_point: input.mountPoint,
    mount_type: input.mountType,
    ...(f ? { client_token: f.token, client_token_accessor: f.accessor } : {}),
    namespace: { id: 'root' },
    path: input.path,
  };
  if (input.data !== undefined && Object.keys(input.data).length > 0) {
    out.data = (o.raw ? rawStructure(input.data) : hashStructure(input.data, hash)) as Record<
      string,
      unknown
    >;
  }
  if (input.remoteAddress !== undefined) out.remote_address = input.remoteAddress;
  if (input.remotePort !== undefined) out.remote_port = input.remotePort;
  return out;
}

/** Vault's `elide_list_responses`: `keys` and `key_info` become their sizes. */
function elide(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const d = { ...(data as Record<string, unknown>) };
  if (Array.isArray(d.keys)) d.keys = d.keys.length;
  if (d.key_info !== null && typeof d.key_info === 'object') {
    d.key_info = Object.keys(d.key_info).length;
  }
  return d;
}

/** The `auth` of a token-creating reply: its token and accessor hashed, the rest as is. */
function replyAuth(auth: Record<string, unknown>, o: FormatOptions, hash: Hasher) {
  const out: Record<string, unknown> = { ...(rawStructure(auth) as Record<string, unknown>) };
  if (typeof auth.client_token === 'string') {
    out.client_token = hashOr(o.raw, hash, auth.client_token);
  }
  if (typeof auth.accessor === 'string') {
    out.accessor = hashOr(o.raw || !o.hmacAccessor, hash, auth.accessor);
  }
  return out;
}

function responseBlock(
  input: AuditRequestInput,
  response: AuditResponseInput,
  o: FormatOptions,
  hash: Hasher,
): NonNullable<AuditEntry['response']> {
  const r: NonNullable<AuditEntry['response']> = {
    mount_point: input.mountPoint,
    mount_type: input.mountType,
  };
  if (response.data !== undefined && response.data !== null) {
    const data = o.elideList && input.operation === 'list' ? elide(response.data) : response.data;
    r.data = (o.raw ? rawStructure(data) : hashStructure(data, hash)) as Record<string, unknown>;
  }
  if (response.auth) r.auth = replyAuth(response.auth, o, hash);
  return r;
}

/** The entry of one request (`response` undefined) or response, for one device. @internal */
export function buildEntry(
  input: AuditRequestInput,
  response: AuditResponseInput | undefined,
  o: FormatOptions,
  h: DeviceHashing,
): AuditEntry {
  const entry: AuditEntry = {
    type: response ? 'response' : 'request',
    time: rfc3339(response ? response.time : input.time),
    auth: authBlock(input, o, h),
    request: requestBlock(input, o, h),
  };
  if (response) entry.response = responseBlock(input, response, o, h.hash);
  const error = response ? response.error : input.error;
  if (error !== undefined) entry.error = error;
  return entry;
}

/**
 * The line a device writes for an entry: prefix, the JSON of
 * {@link buildEntry}'s entry, newline. `parts` keeps the serialised `auth`
 * and `request` blocks of each request (per device), so the response entry
 * reuses them instead of hashing and serialising them again; the text is the
 * same as `JSON.stringify(buildEntry(…))`.
 * @internal
 */
export function entryLine(
  input: AuditRequestInput,
  response: AuditResponseInput | undefined,
  o: FormatOptions,
  h: DeviceHashing,
  parts: WeakMap<AuditRequestInput, string>,
): string {
  let common = parts.get(input);
  if (common === undefined) {
    const auth = JSON.stringify(authBlock(input, o, h));
    common = `"auth":${auth},"request":${JSON.stringify(requestBlock(input, o, h))}`;
    parts.set(input, common);
  }
  const type = response ? 'response' : 'request';
  const time = rfc3339(response ? response.time : input.time);
  let line = `${o.prefix}{"type":"${type}","time":"${time}",${common}`;
  if (response) {
    line += `,"response":${JSON.stringify(responseBlock(input, response, o, h.hash))}`;
  }
  const error = response ? response.error : input.error;
  if (error !== undefined) line += `,"error":${JSON.stringify(error)}`;
  return `${line}}\n`;
}
