/**
 * The health state of a node: initialised, sealed, standby (another instance
 * holds the leader lock, see leadership.ts). A {@link HealthSource} reports it:
 * a `TransitNode`, or an application's own source for fixed services. The
 * HTTP adapter's `sys/health` turns it into status codes and a JSON body; the
 * state itself belongs to the node model, not to HTTP.
 *
 * Runtime-neutral.
 * @module
 */

/**
 * The state of a node, as a {@link HealthSource} reports it.
 * @public
 */
export interface HealthState {
  initialized: boolean;
  sealed: boolean;
  standby: boolean;
  /** Server version string (default: the handler's `version` option). */
  version?: string;
  cluster_name?: string;
  cluster_id?: string;
}

/**
 * Where `/sys/health` (and the sealed check of every other route) reads the
 * node state from.
 * @public
 */
export interface HealthSource {
  health(): HealthState | Promise<HealthState>;
}
