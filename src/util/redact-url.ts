/**
 * A URL as it may be shown in an error message or a log line: without its
 * password, query (ioredis and pg read `?password=…`, TLS key paths) and
 * fragment. One rule for every adapter and the CLI.
 * @module
 */

/**
 * `url` without password, query and fragment; `<unparsable url>` when it is
 * no URL at all (its text could be anything, a password included).
 * @internal
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    // An `@` after the host: a password holding `/`, `?` or `#` was read as
    // host, port and the rest (`postgres://app:12/hunter2@db/app`, where `12`
    // is the password's start): only the scheme is shown.
    if (`${u.pathname}${u.search}${u.hash}`.includes('@')) return `${u.protocol}//(redacted)`;
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString();
  } catch {
    return '<unparsable url>';
  }
}

/**
 * A value the user gave where a URL or another word was expected, for a usage
 * message: a URL with a host is redacted as {@link redactUrl}; any other value
 * holding `@`, `?` or `#` (a password could follow) is shown only up to its
 * first `:` (its scheme, say) or that character.
 * @internal
 */
export function redactedValue(value: string): string {
  try {
    if (new URL(value).host !== '') return redactUrl(value);
  } catch {
    // not a URL: shown as below
  }
  const cut = value.search(/[@?#]/);
  if (cut < 0) return value;
  const colon = value.indexOf(':');
  return `${value.slice(0, colon >= 0 && colon < cut ? colon + 1 : cut)}…`;
}
