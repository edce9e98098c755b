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
 * faults is refused is unchanged. Undeclared fields are ignored.
 * @module
 */
import type { BinaryInput } from './encoding.js';
import { asRequest } from './request.js';

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
  return Object.freeze(schema);
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
