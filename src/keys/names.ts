/**
 * Key-name rules: Vault's `GenericNameRegex` (`\w(([\w-.]+)?\w)?`, ASCII word
 * characters, inner `-` and `.`, no `/`), plus a length bound so every name
 * fits any storage adapter's key limits. Because no user name contains `/`,
 * names that do are reserved for the engine's internal keys (the BYOK
 * wrapping key, `import/wrapping-key` as in Vault), which listings skip.
 * @module
 */
import { invalidRequest } from '../errors.js';

const NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;

/** Longest accepted key name, in characters. @public */
export const MAX_KEY_NAME_LENGTH = 128;

/**
 * The last name that passed: the same key is named call after call, and the
 * check is a pure function of the string (names are not secret, so a plain
 * comparison is fine).
 */
let lastValid = '';

/**
 * Check a key name.
 * @throws TransitError `invalid_request`.
 * @internal
 */
export function checkKeyName(name: unknown): string {
  if (name === lastValid && name !== '') return name;
  if (typeof name !== 'string' || name === '') throw invalidRequest('missing key name');
  if (name.length > MAX_KEY_NAME_LENGTH) {
    throw invalidRequest(`key name is longer than ${MAX_KEY_NAME_LENGTH} characters`);
  }
  if (!NAME.test(name)) {
    throw invalidRequest(
      `invalid key name ${JSON.stringify(name)}: use letters, digits, '_', and inner '-' or '.'`,
    );
  }
  lastValid = name;
  return name;
}

/** The internal name of the BYOK wrapping key (Vault's `import/wrapping-key`). @internal */
export const WRAPPING_KEY_NAME = 'import/wrapping-key';

/** True for the engine's internal key names, which no user name can equal. @internal */
export const isInternalKeyName = (name: string): boolean => name.includes('/');
