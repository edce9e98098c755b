/**
 * Buffer → plain `Uint8Array` at the node backend's edge, without a copy when
 * that is safe.
 *
 * node:crypto returns `Buffer`s. Callers (and vitest's `toEqual`) must see the
 * same type as from the noble backend, and a view over Node's shared 8 KiB
 * Buffer pool would expose unrelated memory through `.buffer`. So a Buffer that
 * owns its whole ArrayBuffer is re-wrapped (zero-copy); anything else is copied.
 *
 * @module
 */

/**
 * Returns `buf` as a plain `Uint8Array` that owns its entire ArrayBuffer.
 * @internal
 */
export function ownedBytes(buf: Uint8Array): Uint8Array {
  if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength) {
    return new Uint8Array(buf.buffer, 0, buf.byteLength);
  }
  return Uint8Array.prototype.slice.call(buf);
}
