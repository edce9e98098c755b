/**
 * fast-check generators of HTTP requests for every row of the route table
 * (`adapters/http/routes.ts`, read at test time, so a new row is fuzzed with
 * no change here): the row's method or a wrong one, its path pattern with
 * good and odd segments, query strings, and bodies built from the row's
 * field schema with right and wrong types, bad base64, long and unicode
 * strings, huge numbers, nested batches, plus raw bodies (truncated JSON,
 * invalid UTF-8, deep nesting, over the size limit).
 *
 * Values that need live state (a ciphertext, an HMAC, a signature the server
 * produced) are drawn as {@link PoolRef}s and resolved when the request is
 * sent, from what earlier responses returned.
 */
import fc from 'fast-check';
import type { Route } from '../../adapters/http/route.js';
import { ROUTES } from '../../adapters/http/routes.js';
import { ANY_STRING, objectOf, PARAM_WORDS, SEGMENT } from './fuzz-values.js';

export { KEY_NAMES, PoolRef } from './fuzz-values.js';

/** A generated request before its values are resolved. */
export interface FuzzRequest {
  /** The route row it was generated from (for messages). */
  row: string;
  method: string;
  segments: string[];
  query: string;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; text: string }
    | { kind: 'bytes'; bytes: Uint8Array }
    | { kind: 'huge'; size: number };
  /** Send without a token. */
  noToken: boolean;
}

/** A path parameter value for a named parameter. */
function paramValue(name: string): fc.Arbitrary<string> {
  if (name === 'name' || name === 'destination' || name === 'source') return SEGMENT;
  return fc.oneof({ weight: 4, arbitrary: PARAM_WORDS }, { weight: 1, arbitrary: SEGMENT });
}

/** Expand a spec pattern (`/transit/x/:a(/:b)`) into segment arbitraries; optional parts maybe. */
function pathArb(pattern: string): fc.Arbitrary<string[]> {
  const parts: fc.Arbitrary<string[]>[] = [];
  const re = /\(([^)]*)\)|([^()]+)/g;
  for (let m = re.exec(pattern); m !== null; m = re.exec(pattern)) {
    const optional = m[1] !== undefined;
    const text = (m[1] ?? m[2]) as string;
    const segs = text
      .split('/')
      .filter((s) => s !== '')
      .map((s) => (s.startsWith(':') ? paramValue(s.slice(1)) : fc.constant(s)));
    const tuple = fc.tuple(...segs);
    parts.push(optional ? fc.option(tuple, { nil: undefined }).map((t) => t ?? []) : tuple);
  }
  return fc.tuple(...parts).map((ps) => ['v1', ...ps.flat()]);
}

/** Raw bodies that are not a JSON object. */
const RAW_BODY: fc.Arbitrary<FuzzRequest['body']> = fc.oneof(
  fc.string({ maxLength: 60 }).map((text) => ({ kind: 'raw' as const, text })),
  fc
    .constantFrom(
      '{"plaintext": "aGk="',
      '{"a":1,}',
      '[1,2]',
      '"text"',
      '42',
      'null',
      '{"key_version": 1e400}',
      '{"key_version": 123456789012345678901234567890}',
      '{"bits": -0}',
      '{"__proto__": {"deletion_allowed": true}}',
      '{"constructor": {"prototype": {"x": 1}}}',
      '{"plaintext": "aGk=", "plaintext": 5}',
      `${'['.repeat(20000)}${']'.repeat(20000)}`,
      `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`,
    )
    .map((text) => ({ kind: 'raw' as const, text })),
  fc
    .uint8Array({ minLength: 1, maxLength: 40 })
    .map((bytes) => ({ kind: 'bytes' as const, bytes: Uint8Array.of(0x7b, ...bytes, 0xff) })),
  fc
    .integer({ min: 64 * 1024 + 1, max: 200 * 1024 })
    .map((size) => ({ kind: 'huge' as const, size })),
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'LIST', 'HEAD', 'PATCH', 'OPTIONS'];
const QUERY = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('?list=true', '?list=1', '?list=nope') },
  {
    weight: 1,
    arbitrary: fc
      .dictionary(
        fc.constantFrom(
          'format',
          'bytes',
          'after',
          'limit',
          'type',
          'activecode',
          'standbyok',
          'x',
        ),
        ANY_STRING,
        { minKeys: 1, maxKeys: 3 },
      )
      .map((d) => `?${new URLSearchParams(d as Record<string, string>).toString()}`),
  },
);

/** Requests for one row. */
function rowArb(route: Route): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
  );
  const body = fc.oneof(
    { weight: 8, arbitrary: objectOf(route.fields).map((value) => ({ kind: 'json', value })) },
    { weight: 2, arbitrary: RAW_BODY },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' }) },
  ) as fc.Arbitrary<FuzzRequest['body']>;
  return fc
    .record({
      method,
      segments: pathArb(route.path),
      query: QUERY,
      body,
      // One request in 50 goes without a token.
      noToken: fc.integer({ min: 0, max: 49 }).map((n) => n === 0),
    })
    .map((r) => ({ ...r, row: `${route.method} ${route.path}` }));
}

/** One request for any row, rows equally likely. */
export const requestArb: fc.Arbitrary<FuzzRequest> = fc.oneof(...ROUTES.map(rowArb));

/** Every row the generator draws from. */
export const FUZZED_ROWS: readonly string[] = ROUTES.map((r) => `${r.method} ${r.path}`);
