/**
 * Warnings travel beside a result (not in it), as Vault's response envelope
 * carries them beside `data`; the HTTP adapter reads them with {@link warningsOf}.
 * @module
 */
const WARNINGS = new WeakMap<object, string[]>();

/** Attach warnings to a result object and return it. @internal */
export function withWarnings<T extends object>(result: T, warnings: readonly string[]): T {
  if (warnings.length > 0) WARNINGS.set(result, [...warnings]);
  return result;
}

/** Warnings attached to a result (empty when none). @public */
export const warningsOf = (result: object): readonly string[] => WARNINGS.get(result) ?? [];
