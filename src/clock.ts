/**
 * Time as an injected dependency. Every component that reads the time takes a
 * {@link Clock}; tests pass a fake one and never sleep. Times are written the
 * way Vault writes them with {@link rfc3339}.
 * @module
 */

/**
 * A source of the current time in milliseconds since the Unix epoch.
 * @public
 */
export interface Clock {
  now(): number;
}

/** The wall clock (`Date.now`). @public */
export const systemClock: Clock = { now: () => Date.now() };

/** An RFC 3339 timestamp with fraction, UTC (Go's RFC3339Nano with trailing zeros trimmed). @internal */
export function rfc3339(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-05-01T10:11:12.123Z
  return iso.replace(/\.?0+Z$/, 'Z');
}
