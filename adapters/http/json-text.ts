/**
 * `JSON.stringify` for the flat objects most replies carry
 * (`{"ciphertext": "vault:v1:…", "key_version": 1}`), the same text cheaper.
 *
 * V8's serializer checks every character of every string for escapes one at
 * a time; a string of printable ASCII without `"` or `\` needs none, and a
 * compiled regular expression finds that much faster. Anything else (a
 * nested value, a string to escape, an object with `toJSON`, a class
 * instance) is left to `JSON.stringify` itself, so the text is always
 * exactly what `JSON.stringify` gives.
 *
 * Runtime-neutral.
 * @module
 */

/** Printable ASCII but `"` and `\`: written between quotes as it is. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** A JSON string literal for `s`. */
const quoted = (s: string): string => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

/**
 * Object keys already written, quoted: replies have few (`ciphertext`,
 * `key_version`, …), and a key's map lookup (its hash is kept with the
 * string) is cheaper than the scan and the new string. Bounded in count and
 * length, so keys from data cannot grow it.
 */
const KEYS = new Map<string, string>();
const KEYS_MAX = 1024;
const KEY_MAX_LENGTH = 64;

/** {@link quoted} for an object key, from {@link KEYS} once seen. */
function quotedKey(k: string): string {
  let q = KEYS.get(k);
  if (q === undefined) {
    q = quoted(k);
    if (KEYS.size < KEYS_MAX && k.length <= KEY_MAX_LENGTH) KEYS.set(k, q);
  }
  return q;
}

/**
 * The JSON text of `value`, equal to `JSON.stringify(value)` (`undefined`
 * where that gives `undefined`).
 * @internal
 */
export function jsonText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !isPlain(value)) {
    return typeof value === 'string' ? quoted(value) : JSON.stringify(value);
  }
  const o = value as Record<string, unknown>;
  if (typeof o.toJSON === 'function') return JSON.stringify(value);
  let out = '';
  for (const k of Object.keys(o)) {
    const v = o[k];
    let text: string;
    if (typeof v === 'string') text = quoted(v);
    else if (typeof v === 'number') text = Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'boolean') text = v ? 'true' : 'false';
    else if (v === null) text = 'null';
    else if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    // A nested value (its `toJSON` is called with its key) or a bigint (which
    // throws): the whole value as JSON.stringify serialises it.
    else return JSON.stringify(value);
    out += `${out === '' ? '{' : ','}${quotedKey(k)}:${text}`;
  }
  return out === '' ? '{}' : `${out}}`;
}

/**
 * An object literal (no array, no boxed primitive, no class instance; an
 * object without a prototype takes `JSON.stringify`'s path).
 */
const isPlain = (o: object): boolean => (o as { constructor?: unknown }).constructor === Object;
