/**
 * The public shapes of audit devices (Vault's `sys/audit` model): a device's
 * configuration as `sys/audit` lists it, the entries written for each request
 * and response (Vault's JSON shape), the device contract that file, socket or
 * custom devices implement, and the in-process sink.
 *
 * Runtime-neutral.
 * @module
 */

/**
 * One enabled device, as `GET sys/audit` lists it (the salt is never shown).
 * @public
 */
export interface AuditDeviceInfo {
  /** Device type: `file`, `socket`, or a type the application registered. */
  type: string;
  description: string;
  /** The options it was enabled with (strings, as Vault). */
  options: Record<string, string>;
  /** Vault's replication flag; kept and listed (there is no replication here). */
  local: boolean;
  /** The path with its trailing slash (`file/`). */
  path: string;
}

/**
 * Body of `PUT sys/audit/:path` ({@link AuditBroker.enable}).
 * @public
 */
export interface AuditEnableRequest {
  /** Device type (required). */
  type: string;
  description?: string;
  /**
   * Options: the device's own (`file_path`, `mode`; `address`, `socket_type`,
   * `write_timeout`: seconds or a Go duration such as `1.5s`, as Vault) and
   * the common ones: `log_raw`, `hmac_accessor`
   * (default true), `elide_list_responses`, `format` (`json`), `prefix`.
   */
  options?: Record<string, string | number | boolean>;
  local?: boolean;
}

/**
 * The `auth` block of an entry. Tokens and accessors are
 * `hmac-sha256:<hex>` unless the device has `log_raw` (accessors also with
 * `hmac_accessor=false`).
 * @public
 */
export interface AuditAuth {
  client_token?: string;
  accessor?: string;
  display_name?: string;
  policies?: string[];
  token_policies?: string[];
  token_type?: string;
  metadata?: Record<string, string> | null;
  entity_id?: string;
}

/**
 * The `request` block of an entry.
 * @public
 */
export interface AuditRequest {
  /** The request id (also `request_id` of the HTTP reply). */
  id: string;
  /** Vault's operation: `create`, `read`, `update`, `delete`, `list`. */
  operation: string;
  /** `transit/`, `sys/`, `auth/token/`. */
  mount_point: string;
  /** `transit`, `system`, `token`. */
  mount_type: string;
  client_token?: string;
  client_token_accessor?: string;
  namespace: { id: string };
  /** The path relative to `/v1`, as the ACL sees it (`transit/encrypt/orders`). */
  path: string;
  /** The request's fields, every string hashed. */
  data?: Record<string, unknown>;
  remote_address?: string;
  remote_port?: number;
}

/**
 * The `response` block of a response entry.
 * @public
 */
export interface AuditResponse {
  mount_point: string;
  mount_type: string;
  /** The reply's data, every string hashed (lists elided with `elide_list_responses`). */
  data?: Record<string, unknown>;
  /** A token-creating reply's `auth` block (its token and accessor hashed). */
  auth?: Record<string, unknown>;
}

/**
 * One audit entry: a `request` entry before the operation runs, a
 * `response` entry after it (with `error` when it failed).
 * @public
 */
export interface AuditEntry {
  type: 'request' | 'response';
  /** RFC 3339 time. */
  time: string;
  auth: AuditAuth;
  request: AuditRequest;
  response?: AuditResponse;
  /** The error message of a refused or failed request. */
  error?: string;
}

/**
 * A device's output: lines (one JSON entry each, `\n`-terminated) written in
 * the order given. `write` resolves once the line is recorded (written to
 * the file or socket) and rejects when it cannot be; the broker then counts
 * the device as failed for that entry.
 * @public
 */
export interface AuditDevice {
  write(line: string): Promise<void>;
  /** Wait for every accepted line to be written. */
  flush(): Promise<void>;
  /** Flush, then release the file or connection. */
  close(): Promise<void>;
  /** Reopen the output (a file after log rotation: SIGHUP). */
  reopen?(): Promise<void>;
}

/**
 * Makes devices of one type. `options` lists the device's own option names
 * (others, besides the common ones, are refused); `create` validates them
 * (`TransitError` `invalid_request`) and opens the output — on the instance
 * that enables the device (a bad path is refused there) and on every
 * instance that learns of it through the storage.
 * @public
 */
export interface AuditDeviceFactory {
  readonly options: readonly string[];
  create(config: { path: string; options: Readonly<Record<string, string>> }): Promise<AuditDevice>;
}

/**
 * The in-process audit hook: receives every entry (hashed with the sink's
 * own salt, stored in the barrier) as an object. A sink that throws or
 * rejects has failed to record the entry (fail closed, as a device).
 * @public
 */
export type AuditSink = (entry: AuditEntry) => void | Promise<void>;

/**
 * Why a device did not record an entry (for metrics: `onFailure`).
 * @public
 */
export interface AuditFailureInfo {
  /** Device path (`file/`), or `sink` for the in-process sink. */
  path: string;
  /** `request` or `response`. */
  entry: 'request' | 'response';
  /** The device's error message (never an entry's content). */
  reason: string;
}
