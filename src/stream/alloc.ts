/**
 * Output buffers of the stream encoder. On Node the global `Buffer`'s
 * `allocUnsafeSlow` skips the zero-fill (a memset of every output piece);
 * elsewhere a plain `Uint8Array`.
 *
 * Safe only because every byte of such a buffer is written before it leaves:
 * the encoder seals whole chunks into the whole of it. The result is always
 * a plain `Uint8Array` that owns its whole ArrayBuffer. No `node:` import: the
 * global is looked up, as `encoding.ts` does.
 * @module
 */
type UnsafeAlloc = { allocUnsafeSlow(size: number): Uint8Array };
const NodeBuffer: UnsafeAlloc | undefined = (globalThis as { Buffer?: UnsafeAlloc }).Buffer;

/** `n` bytes that the caller must overwrite entirely before anyone else sees them. @internal */
export function unfilled(n: number): Uint8Array {
  if (NodeBuffer === undefined) return new Uint8Array(n);
  const b = NodeBuffer.allocUnsafeSlow(n);
  return new Uint8Array(b.buffer, b.byteOffset, n);
}
