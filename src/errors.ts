/**
 * The one error family of transitkit.
 *
 * Every failure a caller can cause is a {@link TransitError} with a stable
 * {@link ErrorCode}; the HTTP adapter maps codes to statuses in a single table.
 * Messages follow Vault's texts where Vault has one (clients match on them) and
 * never contain key material, plaintexts or tokens.
 *
 * @module
 */

/**
 * Stable error codes. `switch (err.code)` over this union is exhaustive.
 * @public
 */
export type ErrorCode =
  | 'invalid_request'
  | 'not_found'
  | 'permission_denied'
  | 'unsupported_operation'
  | 'conflict'
  | 'sealed'
  | 'standby'
  | 'payload_too_large'
  | 'internal';

/**
 * The brand every {@link TransitError} carries, under a registry symbol
 * (`Symbol.for`), so that the ESM and CJS builds, and two copies of the package
 * in one process, recognise each other's errors (the dual package hazard).
 */
const BRAND: unique symbol = Symbol.for('transitkit.TransitError');

/** True when `value` carries the TransitError brand, from any build or copy. */
function isBranded(value: unknown): value is TransitError {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    (value as { [BRAND]?: unknown })[BRAND] === true
  );
}

/**
 * The error thrown by every transitkit operation.
 *
 * `instanceof TransitError` and {@link isTransitError} hold for an error thrown
 * by any build of transitkit (ESM or CommonJS) or any copy of the package in
 * the process: both check a brand registered with `Symbol.for`, not the class
 * identity.
 *
 * @example
 * ```ts
 * try {
 *   await transit.decrypt('k', { ciphertext: 'vault:v1:AAAA' });
 * } catch (e) {
 *   if (e instanceof TransitError && e.code === 'invalid_request') console.log(e.message);
 * }
 * ```
 * @public
 */
export class TransitError extends Error {
  /** The stable code; see {@link ErrorCode}. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = 'TransitError';
  }

  static {
    // On the prototype, not enumerable: invisible to JSON, spreads and deep equality.
    Object.defineProperty(TransitError.prototype, BRAND, { value: true });
  }

  /**
   * `value instanceof TransitError`: true for a TransitError from any build or
   * copy of transitkit (by its brand). For a subclass, the ordinary prototype check.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` tells TransitError from a subclass
    if (this !== TransitError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return isBranded(value);
  }
}

/** A caller's mistake (HTTP 400). @internal */
export const invalidRequest = (message: string, cause?: unknown): TransitError =>
  new TransitError('invalid_request', message, { cause });

/** A missing resource (HTTP 404 on reads). @internal */
export const notFound = (message: string): TransitError => new TransitError('not_found', message);

/** An operation the key or mode does not support. @internal */
export const unsupported = (message: string): TransitError =>
  new TransitError('unsupported_operation', message);

/** A concurrent write won; the caller may retry. @internal */
export const conflict = (message: string): TransitError => new TransitError('conflict', message);

/**
 * The node is sealed, or not initialised yet (HTTP 503): Vault's texts
 * `Vault is sealed` and `Vault is not initialized`.
 * @internal
 */
export const sealed = (initialized = true): TransitError =>
  new TransitError('sealed', initialized ? 'Vault is sealed' : 'Vault is not initialized');

/** A bug or an unexpected backend failure (HTTP 500). @internal */
export const internal = (message: string, cause?: unknown): TransitError =>
  new TransitError('internal', message, { cause });

/**
 * True when `e` is a TransitError (optionally of the given code), thrown by
 * any build (ESM or CommonJS) or copy of transitkit.
 * @public
 */
export function isTransitError(e: unknown, code?: ErrorCode): e is TransitError {
  return isBranded(e) && (code === undefined || e.code === code);
}
