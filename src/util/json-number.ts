/**
 * JSON numbers as Vault reads them: as their literal text.
 *
 * Vault decodes request bodies with `UseNumber`, so every number reaches its
 * handlers as a `json.Number`, the text as written. An integer field refuses
 * `3.0` and `1e3` (`strconv.ParseInt` fails on them), and a string field
 * given `1.50` gets `"1.50"`. `JSON.parse` keeps the value and loses the
 * text. A number whose JavaScript value prints back as its literal (`3`,
 * `-7`, `1.5`) loses nothing by that; the HTTP adapter's body parser keeps
 * each other one (`3.0`, `1e3`, `-0`, `1.50`, twenty digits) as a
 * {@link JsonNumber}: at a body's top level, for the field converters
 * (`weak-decode.ts`, `goUnmarshalError`), and as its text deeper down, where
 * Vault's decoders read a `json.Number` as a string or refuse it.
 *
 * Neutral (no imports).
 * @module
 */

/**
 * A JSON number that JavaScript cannot carry as written, kept as its text.
 * @internal
 */
export class JsonNumber {
  /** The literal, as the body had it. */
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  /** `JSON.stringify` writes the number JavaScript reads from the literal. */
  toJSON(): number {
    return Number(this.text);
  }
}

/** Whether JavaScript's value of the number literal `text` prints back as `text`. @internal */
export const carriedExactly = (text: string): boolean => String(Number(text)) === text;

/** Whether `text` is a base-10 integer literal, the syntax `strconv.ParseInt(text, 10, 64)` reads. @internal */
export const isDecimalInt = (text: string): boolean => /^-?[0-9]+$/.test(text);

/**
 * Go's `json.Number.Int64()` (`strconv.ParseInt(text, 10, 64)`), within
 * JavaScript's safe integers; `undefined` otherwise.
 * @internal
 */
export function jsonNumberInt(n: JsonNumber): number | undefined {
  if (!isDecimalInt(n.text)) return undefined;
  const v = Number(n.text);
  return Number.isSafeInteger(v) ? v + 0 : undefined; // `+ 0`: -0 is 0
}
