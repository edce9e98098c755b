/**
 * The check every constructor makes of its options object: each key is one
 * it knows. A misspelt option (`storge`, `rootkey`) would otherwise mean its
 * default, in silence.
 * @module
 */
import { invalidRequest } from '../errors.js';

/**
 * The known keys of an options type as a set. Built from a record with every
 * key of `T` (`satisfies Record<keyof T, true>`), so the compiler checks the
 * list is complete and has nothing else.
 * @internal
 */
export const optionKeys = <T extends object>(record: Record<keyof T, true>): ReadonlySet<string> =>
  new Set(Object.keys(record));

/**
 * Refuse a key of `options` that `known` does not hold.
 * @param what - the class the options are for, as the message names it.
 * @param prefix - where `options` sits in the class's options (`transit.`).
 * @throws TransitError `invalid_request` naming the first unknown key.
 * @internal
 */
export function refuseUnknownOptions(
  options: object,
  known: ReadonlySet<string>,
  what: string,
  prefix = '',
): void {
  for (const k of Object.keys(options)) {
    if (!known.has(k)) throw invalidRequest(`unknown ${what} option '${prefix}${k}'`);
  }
}

/**
 * The options one class passes on to another: `known` (the options of
 * `Full`) without `left`, with `added`. Both lists are records over the key
 * difference of the two types, so the compiler holds them to the type that
 * declares what is passed on (`Passed`), and the type stays their one source.
 * @internal
 */
export function passedOn<Full extends object, Passed extends object>(
  known: ReadonlySet<string>,
  left: Record<Exclude<keyof Full, keyof Passed>, true>,
  added: Record<Exclude<keyof Passed, keyof Full>, true>,
): ReadonlySet<string> {
  const out = new Set(known);
  for (const k of Object.keys(left)) out.delete(k);
  for (const k of Object.keys(added)) out.add(k);
  return out;
}

/**
 * `value` when it is an integer in 1..`max`, `fallback` when absent.
 * @throws TransitError `invalid_request` naming the option otherwise.
 * @internal
 */
export function positiveInt(
  value: unknown,
  name: string,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw invalidRequest(`'${name}' must be an integer between 1 and ${max}`);
  }
  return value;
}

/**
 * The longest delay Node's timers keep (2^31 − 1 ms, about 24.8 days): a
 * longer one fires after 1 ms, so a timer period or lock TTL is capped here.
 * @internal
 */
export const MAX_TIMER_MS = 2_147_483_647;
