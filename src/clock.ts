/**
 * Time as an injected dependency. Every component that reads the time takes a
 * {@link Clock}; tests pass a fake one and never sleep.
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
