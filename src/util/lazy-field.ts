/**
 * A plain object's field computed on its first read.
 *
 * The field is an own, enumerable accessor until then, so `JSON.stringify`,
 * spreads, `Object.keys`/`entries` and structured cloning see it where and as
 * a data field would be; the first read (or a write) turns it into an ordinary
 * writable data field. Node's `util.inspect` would print an accessor as
 * `[Getter/Setter]`, so the object also gets a non-enumerable inspect hook
 * that shows it as plain data (ignored by JSON, spreads and deep equality).
 * @module
 */

const INSPECT = Symbol.for('nodejs.util.inspect.custom');

type Inspect = (value: unknown, options: { depth?: number | null }) => string;

/**
 * Node's `util.inspect` hook: the object's fields as plain data. `depth` is
 * the depth still left at this object (null: unlimited).
 */
function inspectPlain(
  this: object,
  depth: number | null,
  options: { depth?: number | null },
  inspect: Inspect,
): string {
  return inspect({ ...this }, { ...options, depth });
}

/**
 * Make `target[field]` the value of `compute()`, called on the first read
 * (at most once; never if the field is first written). Writing to a frozen
 * target throws, as for any frozen field.
 * @internal
 */
export function lazyField<T extends object, K extends keyof T & string>(
  target: T,
  field: K,
  compute: () => T[K],
): void {
  const settle = (value: T[K]) =>
    Object.defineProperty(target, field, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  let computed: { value: T[K] } | undefined;
  Object.defineProperty(target, field, {
    get() {
      computed ??= { value: compute() };
      // A target frozen (or sealed) before the first read keeps the accessor:
      // its later reads get the same value, and nothing throws.
      if (Object.getOwnPropertyDescriptor(target, field)?.configurable) settle(computed.value);
      return computed.value;
    },
    set: settle,
    enumerable: true,
    configurable: true,
  });
  if (!Object.hasOwn(target, INSPECT)) {
    Object.defineProperty(target, INSPECT, { value: inspectPlain, configurable: true });
  }
}
