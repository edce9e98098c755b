/**
 * `toNodeStream` (`transitkit/stream/node`): transitkit's streams as Node
 * `Transform`s, on both backends — round trips at the chunk boundaries in any
 * piece size, envelopes interchangeable with the web streams both ways, the
 * sealed chunks passed on as the backend made them (ciphertext, then tag, on
 * node:crypto), failures before the first byte, every kind of damage erroring
 * the decrypt stream with only a genuine prefix released, backpressure, and
 * any other `TransformStream` through `Duplex.fromWeb`.
 */
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { toNodeStream } from 'transitkit/stream/node';
import { describe, expect, it } from 'vitest';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { TransitError } from '../../src/errors.js';
import { CHUNK_SIZE, HEADER_SIZE, WIRE_CHUNK } from '../../src/stream/cobblestone.js';
import { BACKENDS } from '../helpers/backends.js';
import {
  decryptAll,
  encryptAll,
  engineOn,
  expectCode,
  joined,
  PIECES,
  pattern,
  sameBytes,
} from './support.js';

/** A Node readable of `bytes` in pieces of `piece` bytes. */
function source(bytes: Uint8Array, piece = 65_536): Readable {
  let off = 0;
  return new Readable({
    read() {
      if (off >= bytes.length) return void this.push(null);
      const n = Math.min(piece, bytes.length - off);
      this.push(Buffer.from(bytes.subarray(off, off + n)));
      off += n;
    },
  });
}

/** A writable that keeps every piece it is given. */
function collector(): { sink: Writable; pieces: Uint8Array[] } {
  const pieces: Uint8Array[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      pieces.push(new Uint8Array(chunk));
      cb();
    },
  });
  return { sink, pieces };
}

/** Run `bytes` through `stage`; what came out, and the pipeline's error if any. */
async function through(
  stage: NodeJS.ReadWriteStream,
  bytes: Uint8Array,
  piece?: number,
): Promise<{ pieces: Uint8Array[]; bytes: Uint8Array; error: unknown }> {
  const { sink, pieces } = collector();
  let error: unknown;
  await pipeline(source(bytes, piece), stage, sink).catch((e: unknown) => {
    error = e;
  });
  return { pieces, bytes: joined(pieces), error };
}

const LENGTHS = [0, 1, 16_383, 16_384, 16_385, 3 * CHUNK_SIZE, 2 * 1024 * 1024 + 7];

for (const [name, backend] of BACKENDS) {
  describe(`toNodeStream on ${name}`, () => {
    it('round-trips every boundary length in any piece size, interchangeably with the web streams', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      for (const n of LENGTHS) {
        const plain = pattern(n, n + 3);
        for (const piece of n > 4 * CHUNK_SIZE ? [65_536, 100_003] : PIECES) {
          const env = await through(toNodeStream(transit.encryptStream('k')), plain, piece);
          expect(env.error, `n=${n} piece=${piece}`).toBeUndefined();
          // The web decrypt stream opens it, and the Node one opens the web stream's envelope.
          const web = await decryptAll(transit, 'k', env.bytes);
          expect(web.error).toBeUndefined();
          expect(sameBytes(web.bytes, plain), `n=${n} piece=${piece}`).toBe(true);
          const webEnv = await encryptAll(transit, 'k', plain);
          const back = await through(toNodeStream(transit.decryptStream('k')), webEnv, piece);
          expect(back.error).toBeUndefined();
          expect(sameBytes(back.bytes, plain), `n=${n} piece=${piece}`).toBe(true);
        }
      }
    });

    it('passes each sealed chunk on as the backend made it, header first', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const plain = pattern(3 * CHUNK_SIZE + 5);
      const env = await through(toNodeStream(transit.encryptStream('k')), plain);
      expect(env.error).toBeUndefined();
      const [first, ...rest] = env.pieces;
      const wrappedLen = ((first?.[4] ?? 0) << 8) | (first?.[5] ?? 0);
      expect(first?.length).toBe(6 + wrappedLen + HEADER_SIZE);
      const sizes = rest.map((p) => p.length);
      // node:crypto: ciphertext and tag as two pieces, no gathering copy; noble: one sealed chunk.
      const full = backend.aeadSealParts ? [CHUNK_SIZE, 16] : [WIRE_CHUNK];
      expect(sizes).toEqual([...full, ...full, ...full, 5 + 16]);
    });

    it('fails before the first byte on an unknown key or one that cannot encrypt', async () => {
      const transit = engineOn(backend);
      await transit.createKey('signer', { type: 'ed25519' });
      const missing = await through(toNodeStream(transit.encryptStream('nope')), pattern(100));
      expectCode(missing.error, 'not_found');
      expect(missing.pieces).toEqual([]);
      const refused = await through(toNodeStream(transit.encryptStream('signer')), pattern(100));
      expectCode(refused.error, 'invalid_request');
      expect(refused.pieces).toEqual([]);
    });

    it('errors on tamper, truncation, reordering and trailing data, releasing only a genuine prefix', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const plain = pattern(4 * CHUNK_SIZE + 100, 7);
      const env = (await through(toNodeStream(transit.encryptStream('k')), plain)).bytes;
      const start = env.length - (4 * WIRE_CHUNK + 100 + 16);
      const damaged: [string, Uint8Array][] = [];
      const flipped = env.slice();
      flipped[start + 2 * WIRE_CHUNK + 10] = (flipped[start + 2 * WIRE_CHUNK + 10] ?? 0) ^ 1;
      damaged.push(['a flipped bit in chunk 2', flipped]);
      damaged.push(['cut at a chunk boundary', env.slice(0, start + 3 * WIRE_CHUNK)]);
      damaged.push(['cut inside the final chunk', env.slice(0, env.length - 1)]);
      damaged.push(['trailing data', joined([env, new Uint8Array([0])])]);
      const swapped = env.slice();
      swapped.set(env.subarray(start + WIRE_CHUNK, start + 2 * WIRE_CHUNK), start);
      swapped.set(env.subarray(start, start + WIRE_CHUNK), start + WIRE_CHUNK);
      damaged.push(['chunks 0 and 1 swapped', swapped]);
      for (const [what, bytes] of damaged) {
        const out = await through(toNodeStream(transit.decryptStream('k')), bytes, 10_000);
        expect(out.error, what).toBeInstanceOf(TransitError);
        expect((out.error as TransitError).code, what).toBe('invalid_request');
        expect(out.bytes.length % CHUNK_SIZE, what).toBe(0);
        expect(sameBytes(out.bytes, plain.subarray(0, out.bytes.length)), what).toBe(true);
      }
    });

    it('decrypt fails before the first byte when the data key does not unwrap (wrong context)', async () => {
      const transit = engineOn(backend);
      await transit.createKey('d', { derived: true });
      const context = Buffer.from('tenant-1').toString('base64');
      const env = await through(
        toNodeStream(transit.encryptStream('d', { context })),
        pattern(40_000),
      );
      expect(env.error).toBeUndefined();
      const other = Buffer.from('tenant-2').toString('base64');
      const out = await through(
        toNodeStream(transit.decryptStream('d', { context: other })),
        env.bytes,
      );
      expectCode(out.error, 'invalid_request');
      expect(out.pieces).toEqual([]);
      const right = await through(toNodeStream(transit.decryptStream('d', { context })), env.bytes);
      expect(sameBytes(right.bytes, pattern(40_000))).toBe(true);
    });
  });
}

describe('toNodeStream', () => {
  it('reads no further ahead than its buffers while its reader waits (backpressure)', async () => {
    const transit = engineOn(nodeBackend);
    await transit.createKey('k');
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 65_536;
        this.push(Buffer.alloc(65_536, 1));
      },
    });
    const stage = toNodeStream(transit.encryptStream('k'));
    endless.pipe(stage);
    await new Promise((r) => setTimeout(r, 200));
    // Nobody reads the output: the source, the stage's two 64 KiB buffers and one
    // chunk in flight stop it well short of a MiB.
    expect(pulled).toBeGreaterThan(0);
    expect(pulled).toBeLessThan(1024 * 1024);
    const before = pulled;
    await new Promise((r) => setTimeout(r, 100));
    expect(pulled).toBe(before);
    endless.destroy();
    stage.destroy();
  });

  it('locks the web stream it drives, and refuses a stream already in use', async () => {
    const transit = engineOn(nodeBackend);
    await transit.createKey('k');
    const web = transit.encryptStream('k');
    const node = toNodeStream(web);
    expect(web.readable.locked && web.writable.locked).toBe(true);
    expect(() => toNodeStream(web)).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: expect.stringMatching(/in use/),
      }),
    );
    for (const bad of [5, null, undefined, {}, { readable: 1, writable: 2 }]) {
      expect(() => toNodeStream(bad as never)).toThrow(
        'toNodeStream needs a TransformStream (readable and writable sides)',
      );
    }
    const used = transit.encryptStream('k');
    used.readable.getReader();
    expect(() => toNodeStream(used)).toThrow(/already in use/);
    node.destroy();
  });

  it('takes any other TransformStream through Duplex.fromWeb', async () => {
    const upper = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(new TextEncoder().encode(new TextDecoder().decode(chunk).toUpperCase()));
      },
    });
    const out = await through(toNodeStream(upper), new TextEncoder().encode('hello, node'), 4);
    expect(out.error).toBeUndefined();
    expect(new TextDecoder().decode(out.bytes)).toBe('HELLO, NODE');
  });

  it('streams 48 MiB through encrypt and decrypt Transforms in one pipeline', async () => {
    const transit = engineOn(nodeBackend);
    await transit.createKey('k');
    const block = pattern(1024 * 1024, 11);
    const total = 48;
    let sent = 0;
    const input = new Readable({
      read() {
        if (sent === total) return void this.push(null);
        sent++;
        this.push(Buffer.from(block));
      },
    });
    const hash = createHash('sha256');
    let bytes = 0;
    await pipeline(
      input,
      toNodeStream(transit.encryptStream('k')),
      toNodeStream(transit.decryptStream('k')),
      new Writable({
        write(chunk: Buffer, _e, cb) {
          hash.update(chunk);
          bytes += chunk.length;
          cb();
        },
      }),
    );
    const expected = createHash('sha256');
    for (let i = 0; i < total; i++) expected.update(block);
    expect(bytes).toBe(total * 1024 * 1024);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
  });
});
