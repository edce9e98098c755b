/**
 * Random-access sources for {@link EncryptedObject}s: a `Blob` (or `File`),
 * a Node `FileHandle` (`fs.promises.open`), or any object with
 * `read(offset, length)` and a `size`. All are brought to one shape,
 * {@link ByteSource}, whose reads return exactly the bytes asked for.
 *
 * Runtime-neutral: a file handle is recognised by its shape (`stat` and a
 * positional `read`), so nothing here imports `node:*`.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { truncated } from './cobblestone.js';

/**
 * The positional-read half of a Node `FileHandle` (`fs.promises.open(...)`),
 * which a `FileHandle` satisfies as is.
 * @public
 */
export interface FileHandleLike {
  /** Read up to `length` bytes at file `position` into `buffer` from `offset`. */
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
  /** The file's size, read once when the object is opened. */
  stat(): Promise<{ size: number }>;
}

/**
 * A source that reads `length` bytes at `offset` (it may return fewer only
 * at the end) and knows its total size.
 * @public
 */
export interface ReadAtSource {
  /**
   * `length` bytes at `offset` (fewer means the source is truncated: an error).
   * The bytes may be a view of a buffer the source reuses, as long as they stay
   * unchanged until its next `read` is called; with concurrent reads of one
   * opened object, each read must return bytes of its own.
   */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** The total size in bytes, or a function returning it (called once, at open). */
  size: number | (() => Promise<number>);
}

/**
 * Where {@link Transit.openEncrypted} reads a TKS1 envelope from: a `Blob`, a
 * Node `FileHandle`, or a {@link ReadAtSource}.
 * @public
 */
export type RandomAccessSource = Blob | FileHandleLike | ReadAtSource;

/** The normalised source: exact reads and a size. @internal */
export interface ByteSource {
  size(): Promise<number>;
  /** Exactly `length` bytes at `offset`; a short read is a truncated source. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

const isBlob = (s: unknown): s is Blob => typeof Blob !== 'undefined' && s instanceof Blob;

/** `read` must return a whole Uint8Array of the length asked for. */
function exact(bytes: unknown, length: number): Uint8Array {
  if (!(bytes instanceof Uint8Array)) {
    throw invalidRequest('stream: the source returned something other than a Uint8Array');
  }
  if (bytes.length < length) throw truncated();
  return bytes.length === length ? bytes : bytes.subarray(0, length);
}

function checkSize(n: unknown): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw invalidRequest('stream: the source size must be a non-negative integer');
  }
  return n;
}

function fromFileHandle(h: FileHandleLike): ByteSource {
  return {
    size: async () => checkSize((await h.stat()).size),
    async read(offset, length) {
      const out = new Uint8Array(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await h.read(out, got, length - got, offset + got);
        if (bytesRead <= 0) throw truncated();
        got += bytesRead;
      }
      return out;
    },
  };
}

/**
 * Bring any {@link RandomAccessSource} to a {@link ByteSource}.
 * @throws TransitError `invalid_request` for anything else.
 * @internal
 */
export function byteSource(source: RandomAccessSource): ByteSource {
  if (isBlob(source)) {
    return {
      size: async () => source.size,
      read: async (offset, length) =>
        exact(new Uint8Array(await source.slice(offset, offset + length).arrayBuffer()), length),
    };
  }
  const s = source as Partial<ReadAtSource & FileHandleLike> | null;
  if (s !== null && typeof s === 'object' && typeof s.read === 'function') {
    if ('size' in s) {
      const { size } = s;
      const read = s.read as ReadAtSource['read'];
      return {
        size: async () => checkSize(typeof size === 'function' ? await size.call(s) : size),
        read: async (offset, length) =>
          length === 0 ? new Uint8Array(0) : exact(await read.call(s, offset, length), length),
      };
    }
    if (typeof s.stat === 'function') return fromFileHandle(s as FileHandleLike);
  }
  throw invalidRequest(
    'stream: the source must be a Blob, a FileHandle or an object with read(offset, length) and size',
  );
}
