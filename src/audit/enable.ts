/**
 * The checks of `PUT sys/audit/:path` before anything is opened or stored:
 * the path (one or more segments, no `.` or `..`; stored with a trailing
 * slash, as Vault lists it), the type, the option names (the device's own and
 * the common ones) and the common options' values.
 *
 * Runtime-neutral.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { asRequest } from '../request.js';
import { COMMON_OPTIONS, formatOptions } from './format.js';
import type { AuditDeviceFactory, AuditEnableRequest } from './types.js';

/** Why `options.prefix` is refused (enable) or left out (a stored device). @internal */
export const PREFIX_REFUSED =
  'audit log prefixing is not allowed: the server configuration must set allow_audit_log_prefixing';

const PATH = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;

/** `file`, `/file/`, `a/b/` → `file/`, `a/b/`. @throws TransitError `invalid_request`. */
/** @internal */
export function normalizePath(path: unknown): string {
  if (typeof path !== 'string') throw invalidRequest('path must be a string');
  const p = path.replace(/^\/+|\/+$/g, '');
  if (!PATH.test(p) || p.split('/').some((seg) => seg === '.' || seg === '..'))
    throw invalidRequest(`invalid audit device path ${JSON.stringify(path)}`);
  return `${p}/`;
}

/** Options as strings (numbers and booleans as Vault's JSON decoding would give them). */
function optionStrings(options: unknown): Record<string, string> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw invalidRequest('options must be an object of strings');
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(options)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else throw invalidRequest(`options.${k} must be a string`);
  }
  return out;
}

/** A checked enable request. @internal */
export interface CheckedEnable {
  type: string;
  description: string;
  options: Record<string, string>;
  local: boolean;
  factory: AuditDeviceFactory;
}

/**
 * `allowPrefix`: whether `options.prefix` may be set (the broker's
 * `allowLogPrefixing`, Vault's `allow_audit_log_prefixing`). Without it a
 * caller holding `sudo` on `sys/audit` could write lines of their choosing
 * into any file the server can write (Vault's CVE-2025-6000).
 * @throws TransitError `invalid_request`. @internal
 */
export function checkEnable(
  request: AuditEnableRequest,
  factories: Readonly<Record<string, AuditDeviceFactory>>,
  allowPrefix: boolean,
): CheckedEnable {
  const r = asRequest(request, 'request');
  const type = r.type;
  if (typeof type !== 'string' || type === '') throw invalidRequest('type is required');
  const factory = Object.hasOwn(factories, type) ? factories[type] : undefined;
  if (!factory) throw invalidRequest(`unknown audit device type ${JSON.stringify(type)}`);
  const description = r.description ?? '';
  if (typeof description !== 'string') throw invalidRequest('description must be a string');
  if (r.local !== undefined && typeof r.local !== 'boolean') {
    throw invalidRequest('local must be a boolean');
  }
  const options = optionStrings(r.options);
  for (const k of Object.keys(options)) {
    if (!COMMON_OPTIONS.includes(k) && !factory.options.includes(k)) {
      throw invalidRequest(`unknown option ${JSON.stringify(k)} for audit type ${type}`);
    }
  }
  formatOptions(options); // the common options' values
  if (!allowPrefix && options.prefix) throw invalidRequest(PREFIX_REFUSED);
  return { type, description, options, local: r.local === true, factory };
}
