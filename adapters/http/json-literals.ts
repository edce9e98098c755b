/**
 * A JSON body's numbers as Vault reads them (`json-number.ts`): the second
 * parse of a body that holds a number JavaScript cannot carry as written
 * (`3.0`, `1e3`, `-0`, `1.50`, twenty digits), which `checkJsonLimits`
 * reports. Only such bodies pay for it; `JSON.parse` has read the text first
 * and worded any syntax error.
 *
 * Runtime-neutral.
 * @module
 */
import { parse } from 'lossless-json';
import { carriedExactly, JsonNumber } from '../../src/util/json-number.js';
import { setOwn } from '../../src/util/own.js';
import { isMap } from '../../src/weak-decode.js';

/**
 * Parse `text`, already read by `JSON.parse`, keeping each number that
 * JavaScript cannot carry as written: as a {@link JsonNumber} for a field of
 * the body (the field's converter decodes it as Vault decodes a
 * `json.Number`), and as its text inside a list or map (where Vault's
 * decoders read a `json.Number` as a string, or refuse it as a number). A
 * later duplicate key wins, as in `JSON.parse` and Go.
 * @internal
 */
export function parseKeepingLiterals(text: string): unknown {
  const value = parse(text, undefined, {
    parseNumber: (s: string) => (carriedExactly(s) ? Number(s) : new JsonNumber(s)),
    onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue,
  });
  if (!isMap(value)) return value;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (typeof v === 'object' && v !== null && !(v instanceof JsonNumber)) {
      setOwn(value, key, literalsAsText(v));
    }
  }
  return value;
}

/** `value` (a list or map) with every {@link JsonNumber} in it, at any depth, replaced by its text. */
function literalsAsText(value: unknown): unknown {
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return value.map(literalsAsText);
  if (!isMap(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, literalsAsText(value[key]));
  return out;
}
