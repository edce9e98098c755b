/**
 * `HEAD|GET /v1/sys/health` (reference §12): the node state by status code and
 * JSON body, no token, `Cache-Control: no-store`.
 *
 * Status precedence as Vault: not initialized → `uninitcode` (501); sealed →
 * `sealedcode` (503); standby and not `standbyok` → `standbycode` (429); else
 * `activecode` (200). `standbyok`/`perfstandbyok` use Go's bool parsing and the
 * codes `strconv.Atoi`; a bad value is 400 `{"errors":[]}`. A code outside
 * 200..599 is refused the same way (Vault would fail writing it).
 *
 * The state comes from a {@link HealthSource}: a `TransitNode` (uninitialised
 * until `sys/init`, sealed until `sys/unseal`, standby while another node
 * holds the storage's leader lock, else active), or, for a handler on fixed
 * services, an application's own source; without one, an initialized,
 * unsealed, active node.
 *
 * Runtime-neutral.
 * @module
 */
import type { HealthSource, HealthState } from '../../src/node/health.js';
import { GO_FALSE, GO_TRUE } from '../../src/request.js';

// The node's state is the node model's (src/node/health.ts); re-exported for the adapter's users.
export type { HealthSource, HealthState } from '../../src/node/health.js';

/** The body of a health response (OpenBao's fields, plus Vault's `performance_standby`). @public */
export interface HealthBody {
  initialized: boolean;
  sealed: boolean;
  standby: boolean;
  performance_standby: boolean;
  replication_performance_mode: string;
  replication_dr_mode: string;
  server_time_utc: number;
  version: string;
  cluster_name?: string;
  cluster_id?: string;
}

/** The default source: initialized, unsealed, active. @internal */
export const ACTIVE: HealthSource = {
  health: () => ({ initialized: true, sealed: false, standby: false }),
};

/** Go's strconv.ParseBool; `null` when invalid, `false` when absent. */
function goBool(v: string | null): boolean | null {
  if (v === null || v === '') return false;
  if (GO_TRUE.has(v)) return true;
  if (GO_FALSE.has(v)) return false;
  return null;
}

/**
 * strconv.Atoi (within 200..599 here); `null` when invalid. A parameter given
 * empty (`?standbycode=`, a bare `?sealedcode`) is invalid: Vault parses every
 * code parameter present, and `Atoi("")` fails.
 */
function code(v: string | null, dflt: number): number | null {
  if (v === null) return dflt;
  if (!/^[+-]?[0-9]{1,10}$/.test(v)) return null;
  const n = Number(v);
  return n >= 200 && n <= 599 ? n : null;
}

/** What health reports when the node does not say: the handler's options and defaults. @internal */
export interface HealthDefaults {
  readonly version: string;
  /** Given by the handler's options: wins over the node's. */
  readonly clusterName: string | undefined;
  readonly clusterId: string | undefined;
  /** When neither the options nor the node give an id. */
  readonly fallbackClusterId: string;
}

/**
 * The status and body of a health request; `status: 400, body: undefined`
 * means Vault's 400 `{"errors":[]}`. `fields` are the request's query
 * parameters as the row's schema parsed them (sys-fields.ts `HEALTH_FIELDS`);
 * `nowMs` comes from the handler's clock.
 * @internal
 */
export function healthReply(
  state: HealthState,
  fields: Readonly<Record<string, unknown>>,
  nowMs: number,
  defaults: HealthDefaults,
): { status: number; body: HealthBody | undefined } {
  const q = (name: string): string | null => {
    const v = fields[name];
    return typeof v === 'string' ? v : null;
  };
  const standbyOk = goBool(q('standbyok'));
  const perfOk = goBool(q('perfstandbyok'));
  const codes = {
    active: code(q('activecode'), 200),
    standby: code(q('standbycode'), 429),
    dr: code(q('drsecondarycode'), 472),
    perf: code(q('performancestandbycode'), 473),
    sealed: code(q('sealedcode'), 503),
    uninit: code(q('uninitcode'), 501),
  };
  if (standbyOk === null || perfOk === null || Object.values(codes).some((c) => c === null)) {
    return { status: 400, body: undefined };
  }
  let status = codes.active as number;
  if (!state.initialized) status = codes.uninit as number;
  else if (state.sealed) status = codes.sealed as number;
  else if (state.standby && !standbyOk) status = codes.standby as number;
  // Vault marks a sealed (or uninitialised) core standby (`sealInternal`: "even in a non-HA
  // context we key off of this"), and a standby reports the active node's replication
  // state, which a sealed node has not learnt: "unknown".
  const replication = state.sealed ? 'unknown' : 'disabled';
  const body: HealthBody = {
    initialized: state.initialized,
    sealed: state.sealed,
    standby: state.standby || state.sealed,
    performance_standby: false,
    replication_performance_mode: replication,
    replication_dr_mode: replication,
    server_time_utc: Math.floor(nowMs / 1000),
    version: state.version ?? defaults.version,
  };
  if (state.initialized && !state.sealed) {
    // The handler's options win, then the node's (the store's), then the defaults.
    body.cluster_name = defaults.clusterName ?? state.cluster_name ?? 'transitkit';
    body.cluster_id = defaults.clusterId ?? state.cluster_id ?? defaults.fallbackClusterId;
  }
  return { status, body };
}
