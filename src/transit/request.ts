/**
 * Request-shape checks shared by every endpoint: a request or options
 * argument must be a plain object (or omitted), and text fields must be
 * strings — so that a wrong type is an `invalid_request`, never a TypeError
 * or a silent coercion.
 * @module
 */
import { invalidRequest } from '../errors.js';

/** A plain object (`{}` literal or `Object.create(null)`), or `{}` when omitted. @internal */
export function asRequest(value: unknown, what = 'request'): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value === 'object' && value !== null) {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return value as Record<string, unknown>;
  }
  throw invalidRequest(`${what} must be an object`);
}

/** An optional string field (`''` and absent give `undefined`). @internal */
export function optString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`'${field}' must be a string`);
  return value;
}
