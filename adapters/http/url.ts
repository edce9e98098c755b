/**
 * The request target, decoded once for routing and the ACL: an absolute or
 * origin-form URL split into percent-decoded path segments and its query.
 * A dot segment — also an escaped one, one hidden in a decoded `%2F`, and one
 * in an absolute-form target — or a malformed escape refuses the path, so an
 * ACL path can never climb out of the one it names, and every form of a
 * target names the same path.
 *
 * Runtime-neutral.
 * @module
 */

/** A decoded request target: its path segments and query. @internal */
export type Decoded = { segs: string[]; query: URLSearchParams } | undefined;

/** Scheme and authority of an absolute-form request target. */
const ABSOLUTE = /^https?:\/\/[^/?#]*/i;
/** The query of every request without one (never modified: routes only read it). */
const EMPTY_QUERY = /* @__PURE__ */ new URLSearchParams();

/**
 * Split and percent-decode a URL; `undefined` for a malformed, dot-segment or
 * empty-segment path (one trailing `/` is dropped).
 * @internal
 */
export function decodeUrl(url: string): Decoded {
  let path = url;
  let search = '';
  const authority = ABSOLUTE.exec(url);
  if (authority) {
    // The absolute form (a request through a proxy) is checked by the URL
    // parser, but its path is taken as sent: the parser would resolve
    // `%2e%2e` and `\..` segments, which the origin form refuses.
    try {
      new URL(url);
    } catch {
      return undefined;
    }
    path = url.slice(authority[0].length);
  }
  const hash = path.indexOf('#');
  if (hash >= 0) path = path.slice(0, hash);
  const q = path.indexOf('?');
  if (q >= 0) {
    search = path.slice(q + 1);
    path = path.slice(0, q);
  }
  if (authority && path === '') path = '/';
  if (!path.startsWith('/')) return undefined;
  const raw = path.slice(1).split('/');
  if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
  const segs: string[] = [];
  for (const r of raw) {
    // An empty segment (`a//b`): a catch-all row would join it into a path
    // (`create/`) that an exact rule does not match but that names the same thing.
    if (r === '' && raw.length > 1) return undefined;
    let s = r;
    if (r.includes('%')) {
      try {
        s = decodeURIComponent(r);
      } catch {
        return undefined;
      }
    }
    // Also inside a decoded `%2F`: the ACL path joins segments with `/`, so
    // `app%2F..%2Fdb` must not become the dot-segment path `app/../db`, nor
    // `file%2F` the path `file/`, which an exact rule on `file` does not match
    // but which a catch-all row (sys/audit, revoke-prefix) trims back to it.
    if (
      s === '.' ||
      s === '..' ||
      (s !== r && s.split('/').some((p) => p === '' || p === '.' || p === '..'))
    ) {
      return undefined;
    }
    segs.push(s);
  }
  return { segs, query: search === '' ? EMPTY_QUERY : new URLSearchParams(search) };
}
