/**
 * Class identity across builds: the ESM and CommonJS builds of the package, or
 * two copies of it in one process, each define their own classes, so a plain
 * `instanceof` fails for an instance made by the other (the dual package
 * hazard). A brand registered with `Symbol.for` on the prototype, checked by
 * `Symbol.hasInstance`, holds for all of them ({@link TransitError} does the
 * same in errors.ts).
 * @module
 */

/**
 * Make `value instanceof cls` true for an instance of `cls` from any build or
 * copy of transitkit (by the brand `transitkit.<name>`); a subclass keeps the
 * ordinary prototype check.
 * @internal
 */
export function brandClass(cls: abstract new (...args: never[]) => object, name: string): void {
  const brand = Symbol.for(`transitkit.${name}`);
  // On the prototype, not enumerable: invisible to JSON, spreads and deep equality.
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, value: unknown): boolean {
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, value);
      return (
        (typeof value === 'object' || typeof value === 'function') &&
        value !== null &&
        (value as Record<symbol, unknown>)[brand] === true
      );
    },
  });
}
