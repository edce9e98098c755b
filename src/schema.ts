/**
 * Endpoint field schemas: the one declaration of an endpoint's request fields
 * (openbao's `framework.Path` `Fields`: name, type, description). Each
 * `src/transit/<endpoint>.ts` exports its schema; the HTTP route rows take
 * their fields from it (the adapter compiles its Vault-style weak coercion
 * from it once, at load), and the library checks its request object with it.
 *
 * {@link schemaFor} ties a schema to the library's request type: the field
 * names must be exactly the type's keys and each field type must be able to
 * produce a value of the key's type, so the two cannot drift.
 *
 * The library path enters every endpoint through the schema's
 * {@link EndpointSchema.request}: the request must be a plain object (`{}`
 * when omitted). The per-field checks stay where the engine reads each field
 * (the typed request means a TS caller cannot pass a wrong type; a JS caller
 * gets the engine's message), so the order in which a request with several
 * faults is refused is unchanged. Undeclared fields are ignored, with
 * Vault's warning `Endpoint ignored these unrecognized parameters: [a b]`
 * beside the result ({@link warnUnknownFields}), or refused first
 * ({@link refuseUnknownFields}) when the caller chose `'reject'`, as over
 * HTTP.
 * @module
 */
import type { BinaryInput } from './encoding.js';
import { invalidRequest, type TransitError } from './errors.js';
import { asRequest } from './request.js';
import { warningsOf, withWarnings } from './result-meta.js';

/**
 * Field types, with Vault's weak JSON conversions at the HTTP edge
 * (framework `FieldType`, mapstructure's `WeakDecode`): `bool` takes
 * `"true"`/`"t"`/`"1"`/`1` (`""` is false), `int` takes `"3"`, `"0x10"` or a
 * boolean (`""` is 0), `string` a number or a boolean (`"1"`/`"0"`), `map`
 * also `[]`, `strings` a list (elements weakly as strings) or a
 * comma-separated string, `duration` seconds or a duration string.
 * @public
 */
export type FieldType = 'string' | 'int' | 'bool' | 'duration' | 'array' | 'map' | 'strings';

/**
 * One field of an endpoint: its type and the description that documents it.
 * `binary` marks a base64 text field that the library also takes as a
 * `Uint8Array`.
 * @public
 */
export interface FieldSpec {
  readonly type: FieldType;
  readonly description: string;
  readonly binary?: boolean;
}

/** An endpoint's fields: name → spec. @public */
export type FieldSpecs = Readonly<Record<string, FieldSpec>>;

/** The value a field spec yields (what the HTTP edge hands the library). @public */
export type FieldValue<F extends FieldSpec> = F['binary'] extends true
  ? BinaryInput
  : {
      string: string;
      int: number;
      bool: boolean;
      duration: number | string;
      array: unknown[];
      map: Record<string, unknown>;
      strings: string[];
    }[F['type']];

/** The request type a schema describes (every field optional). @public */
export type RequestOf<S extends FieldSpecs> = { -readonly [K in keyof S]?: FieldValue<S[K]> };

/**
 * A library request as the engine reads it after the schema's check: only
 * the declared fields can be read (a misspelt field is a compile error);
 * their values are still checked where the engine reads them.
 * @public
 */
export type SchemaRequest<S extends FieldSpecs> = { [K in keyof S]?: unknown };

/**
 * A compiled endpoint schema: the field specs, and the library's check built
 * from them.
 * @public
 */
export interface EndpointSchema<S extends FieldSpecs = FieldSpecs> {
  readonly fields: S;
  /** Field names, in declaration order. */
  readonly names: readonly string[];
  /**
   * Check a library request: a plain object (`{}` when omitted).
   * @throws TransitError `invalid_request` `<what> must be an object` (`what`: `request`).
   */
  request(value: unknown, what?: string): SchemaRequest<S>;
}

const SCHEMAS = new WeakSet<object>();
/** Each schema's field names as a set (the scan for undeclared fields). */
const KNOWN = new WeakMap<object, ReadonlySet<string>>();

/** Whether a value was built by {@link defineSchema} (the route-table test uses it). @internal */
export const isEndpointSchema = (value: unknown): value is EndpointSchema =>
  typeof value === 'object' && value !== null && SCHEMAS.has(value);

/**
 * Compile a schema (once, at module load).
 * @internal
 */
export function defineSchema<const S extends FieldSpecs>(fields: S): EndpointSchema<S> {
  const names = Object.freeze(Object.keys(fields));
  const schema: EndpointSchema<S> = {
    fields: Object.freeze(fields),
    names,
    request: asRequest as EndpointSchema<S>['request'],
  };
  SCHEMAS.add(schema);
  KNOWN.set(schema, new Set(names));
  return Object.freeze(schema);
}

/**
 * What a request's fields that its endpoint does not declare get: ignored
 * with Vault's warning (`'warn'`, the default, as Vault), or refused with
 * `invalid_request` before anything runs (`'reject'`).
 * @public
 */
export type UnknownFields = 'warn' | 'reject';

/** The refusal of undeclared fields in `'reject'` mode (the HTTP adapter's too). @internal */
export const unrecognizedParameters = (names: readonly string[]): TransitError =>
  invalidRequest(`unrecognized parameters: [${names.join(' ')}]`);

/**
 * In `'reject'` mode, refuse a request with undeclared fields (see
 * {@link unknownFields}); nothing in `'warn'` mode.
 * @throws TransitError `invalid_request` `unrecognized parameters: [a b]`.
 * @internal
 */
export function refuseUnknownFields(
  mode: UnknownFields,
  schema: EndpointSchema,
  req: unknown,
  also?: readonly string[],
): void {
  if (mode !== 'reject') return;
  const unknown = unknownFields(schema, req, also);
  if (unknown !== undefined) throw unrecognizedParameters(unknown);
}

/** Vault's warning for ignored fields (the HTTP adapter's too). @internal */
export const unknownFieldsWarning = (names: readonly string[]): string =>
  `Endpoint ignored these unrecognized parameters: [${names.join(' ')}]`;

/**
 * The fields of a library request that `schema` does not declare, sorted
 * (as the HTTP adapter reports them); `undefined` when there are none, or
 * when `req` is not a plain object (the endpoint refuses it). A field whose
 * value is `undefined` counts as absent; `also` names fields the library's
 * request type declares beyond the route's (a path parameter, a field the
 * route does not take).
 * @internal
 */
export function unknownFields(
  schema: EndpointSchema,
  req: unknown,
  also?: readonly string[],
): string[] | undefined {
  if (typeof req !== 'object' || req === null) return undefined;
  const proto = Object.getPrototypeOf(req);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const known = KNOWN.get(schema);
  if (known === undefined) return undefined;
  let unknown: string[] | undefined;
  const fields = req as Record<string, unknown>;
  for (const name in fields) {
    if (known.has(name) || !Object.hasOwn(fields, name) || fields[name] === undefined) continue;
    if (also?.includes(name)) continue;
    if (unknown === undefined) unknown = [];
    unknown.push(name);
  }
  return unknown?.sort();
}

/**
 * `result`, with Vault's warning for the undeclared fields of `req` placed
 * before the warnings it already carries (the order of the HTTP envelope).
 * @internal
 */
export function warnUnknownFields<T extends object>(
  schema: EndpointSchema,
  req: unknown,
  result: T,
  also?: readonly string[],
): T {
  const unknown = unknownFields(schema, req, also);
  if (unknown === undefined) return result;
  return withWarnings(result, [unknownFieldsWarning(unknown), ...warningsOf(result)]);
}

/** Which field specs can produce a value of type `V` (loosely: any string member takes a text field). */
type SpecFor<V> =
  | (Uint8Array extends V ? { type: 'string'; binary: true } : never)
  | ([Extract<V, string>] extends [never]
      ? never
      : Uint8Array extends V
        ? never
        : { type: 'string'; binary?: false })
  | ([Extract<V, number>] extends [never] ? never : { type: 'int' })
  | ([Extract<V, boolean>] extends [never] ? never : { type: 'bool' })
  | (number | string extends V ? { type: 'duration' } : never)
  | ([Extract<V, readonly unknown[]>] extends [never] ? never : { type: 'array' | 'strings' })
  | (V extends Record<string, unknown> ? { type: 'map' } : never);

/** Field specs matching request type `R` key for key. @internal */
export type SpecsFor<R> = {
  readonly [K in keyof Required<R>]-?: SpecFor<NonNullable<R[K]>> & {
    readonly description: string;
  };
};

/**
 * Define the schema of a library request type: `schemaFor<EncryptRequest>()({…})`.
 * A missing or extra field, or a field type that cannot yield the key's type,
 * is a compile error.
 * @internal
 */
export const schemaFor =
  <R>() =>
  <const S extends SpecsFor<R>>(
    fields: S & Readonly<Record<Exclude<keyof S, keyof R>, never>>,
  ): EndpointSchema<S> =>
    defineSchema(fields);

/** The schema of an endpoint without fields. @internal */
export const NO_FIELDS: EndpointSchema = defineSchema({});
