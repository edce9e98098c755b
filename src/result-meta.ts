/**
 * Result metadata: what travels beside a result object (not in it), as Vault's
 * response envelope carries `warnings` beside `data` and its batch status rule
 * reads the item errors. One side channel for every layer: transit endpoints
 * and the token store attach warnings ({@link withWarnings}); the batch runner
 * records the codes of failed items ({@link withItemCodes}); the HTTP adapter
 * reads both ({@link warningsOf}, {@link batchErrorCodes}) without the engine
 * knowing HTTP.
 *
 * A neutral module (no imports but a type from `errors.ts`).
 * @module
 */
import type { ErrorCode } from './errors.js';

interface ResultMeta {
  warnings?: string[];
  itemCodes?: ErrorCode[];
}

const META = new WeakMap<object, ResultMeta>();

function metaOf(result: object): ResultMeta {
  let meta = META.get(result);
  if (meta === undefined) {
    meta = {};
    META.set(result, meta);
  }
  return meta;
}

/** Attach warnings to a result object and return it. @internal */
export function withWarnings<T extends object>(result: T, warnings: readonly string[]): T {
  if (warnings.length > 0) metaOf(result).warnings = [...warnings];
  return result;
}

/** Warnings attached to a result (empty when none). @public */
export const warningsOf = (result: object): readonly string[] => META.get(result)?.warnings ?? [];

/** Record the error codes of a batch result's failed items, in order; returns the result. @internal */
export function withItemCodes<T extends object>(result: T, codes: readonly ErrorCode[]): T {
  metaOf(result).itemCodes = [...codes];
  return result;
}

/** Error codes of the failed items of a batch result, in order (empty when all succeeded). @internal */
export const batchErrorCodes = (result: object): readonly ErrorCode[] =>
  META.get(result)?.itemCodes ?? [];
