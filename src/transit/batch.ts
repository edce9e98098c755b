/**
 * The shared batch runner: every item runs independently, in input order; a
 * failing item yields `{ error, reference }` and the rest still run. The codes
 * of failed items are recorded beside the result (not in it, through
 * `src/result-meta.ts`) so that the HTTP adapter can apply Vault's batch status
 * rule without the engine knowing HTTP.
 * @module
 */
import { type ErrorCode, invalidRequest, TransitError } from '../errors.js';
import { isKeyChanged } from '../keys/policy-store.js';
import { withItemCodes } from '../result-meta.js';

/** The number of items in a batch result. @internal */
export const batchSize = (result: { batch_results?: unknown[] }): number =>
  result.batch_results?.length ?? 0;

/** Default and configurable maximum number of items per batch. @internal */
export const DEFAULT_MAX_BATCH = 10_000;

/**
 * Validate `batch_input` and return it as item objects.
 * @internal
 */
export function batchItems(raw: unknown, max: number): Record<string, unknown>[] {
  if (!Array.isArray(raw)) throw invalidRequest("'batch_input' must be an array of objects");
  if (raw.length === 0) throw invalidRequest('missing batch input to process');
  if (raw.length > max) {
    throw invalidRequest(`batch_input has ${raw.length} items; the limit is ${max}`);
  }
  raw.forEach((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw invalidRequest(`failed to parse batch input: item ${i} is not an object`);
    }
  });
  return raw as Record<string, unknown>[];
}

/**
 * The request's `batch_input` as validated items, or `undefined` when the
 * request has none (absent or `null`): the one place that tells a batch
 * request from a single one, for every endpoint that takes `batch_input`.
 * @internal
 */
export function optionalBatch(
  r: Record<string, unknown>,
  max: number,
): Record<string, unknown>[] | undefined {
  return r.batch_input === undefined || r.batch_input === null
    ? undefined
    : batchItems(r.batch_input, max);
}

/** The `reference` of an item (always echoed, `''` when absent). @internal */
export function referenceOf(item: Record<string, unknown>): string {
  const r = item.reference;
  if (r === undefined || r === null) return '';
  if (typeof r !== 'string') throw invalidRequest("'reference' must be a string");
  return r;
}

/**
 * How a message about an item's own field starts (Vault's `'[%d].associated_data'
 * …`): written for item 0, which is also what a request without a batch gets.
 * @internal
 */
export const ITEM_FIELD = "'[0].";

/**
 * The message for the failure of item `index`; unknown errors become a generic
 * internal message. A message about the item's own field names the item.
 * @internal
 */
export function itemError(e: unknown, index = 0): { code: ErrorCode; message: string } {
  if (!(e instanceof TransitError)) return { code: 'internal', message: 'internal error' };
  const m = e.message;
  return {
    code: e.code,
    message: index > 0 && m.startsWith(ITEM_FIELD) ? `'[${index}].${m.slice(5)}` : m,
  };
}

/**
 * Run `fn` on every item; collect results or per-item errors.
 * `onError` shapes the failed item (e.g. decrypt items always carry `plaintext: ''`).
 * `fn` and `onError` return a fresh object each call: runBatch completes it
 * with the item's `reference` (its last field) in place. A copy
 * with the reference spread in cost a batch of 1,000 × 64 B encrypts ≈ 6 %
 * of its CPU time (more garbage held until the batch ends).
 * @internal
 */
export async function runBatch<R extends { reference: string }>(
  items: Record<string, unknown>[],
  fn: (
    item: Record<string, unknown>,
    index: number,
  ) => Promise<Omit<R, 'reference'>> | Omit<R, 'reference'>,
  onError: (message: string) => Omit<R, 'reference'>,
): Promise<{ batch_results: R[] }> {
  const out: R[] = [];
  const codes: ErrorCode[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Record<string, unknown>;
    let reference = '';
    try {
      reference = referenceOf(item);
      const result = fn(item, i);
      // No tick for an item done synchronously (a cached symmetric key's seal or open).
      const done = (result instanceof Promise ? await result : result) as R;
      done.reference = reference;
      out.push(done);
    } catch (e) {
      // The key changed under an item's archived read: the whole call runs again.
      if (isKeyChanged(e)) throw e;
      const { code, message } = itemError(e, i);
      codes.push(code);
      const failed = onError(message) as R;
      failed.reference = reference;
      out.push(failed);
    }
  }
  return withItemCodes({ batch_results: out }, codes);
}
