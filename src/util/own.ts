/**
 * `setOwn`: write a key of a decoded request as a plain own property, so a
 * key named `__proto__` is data, never the object's prototype (an assignment
 * `o[k] = v` would change the prototype). Neutral.
 * @module
 */

/** `target[key] = value` as an own, enumerable, writable data property. @internal */
export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
