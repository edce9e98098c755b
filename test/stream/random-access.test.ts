/**
 * `openEncrypted` on both backends: ranges within, across and past chunk
 * boundaries; only the chunks a range needs are read (the source counts its
 * reads and bytes); the plaintext size is authenticated from the final chunk,
 * so a truncated or extended source fails; Blob, FileHandle and custom
 * sources alike.
 */
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import { CHUNK_SIZE, HEADER_SIZE, WIRE_CHUNK } from '../../src/stream/cobblestone.js';
import { BACKENDS } from '../helpers/backends.js';
import { encryptAll, engineOn, expectCode, joined, pattern, sameBytes } from './support.js';

/** A custom source over `bytes` that records each read. */
function recording(bytes: Uint8Array) {
  const reads: Array<[number, number]> = [];
  return {
    reads,
    size: bytes.length,
    async read(offset: number, length: number) {
      reads.push([offset, length]);
      return bytes.slice(offset, offset + length);
    },
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'tk-stream-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

for (const [name, backend] of BACKENDS) {
  describe(`openEncrypted on ${name}`, () => {
    const plain = pattern(10 * CHUNK_SIZE + 1234, 7);

    it('serves ranges within, across and past chunks, reading only the chunks needed', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const env = await encryptAll(transit, 'k', plain);
      const src = recording(env);
      const obj = await transit.openEncrypted('k', src);
      expect(src.reads.length).toBe(2); // fixed prefix; wrapped key + header
      const body = src.reads[1] ? src.reads[1][0] + src.reads[1][1] : 0;
      expect(body).toBe(env.length - (10 * WIRE_CHUNK + 1234 + 16));

      const cases: Array<[number, number, number[]]> = [
        [0, 10, [0]],
        [CHUNK_SIZE - 5, 10, [0, 1]],
        [3 * CHUNK_SIZE, CHUNK_SIZE, [3]],
        [3 * CHUNK_SIZE + 1, CHUNK_SIZE, [3, 4]],
        [2 * CHUNK_SIZE + 100, 3 * CHUNK_SIZE, [2, 3, 4, 5]],
      ];
      for (const [offset, length, chunks] of cases) {
        src.reads.length = 0;
        const got = await obj.read(offset, length);
        expect(sameBytes(got, plain.subarray(offset, offset + length)), `${offset}+${length}`).toBe(
          true,
        );
        // One read covering exactly the chunks of the range.
        const first = chunks[0] as number;
        const last = chunks[chunks.length - 1] as number;
        expect(src.reads, `${offset}+${length}`).toEqual([
          [body + first * WIRE_CHUNK, (last - first + 1) * WIRE_CHUNK],
        ]);
      }

      // Reaching the end opens the final chunk; past the end gives what exists.
      src.reads.length = 0;
      const tail = await obj.read(plain.length - 100, 1000);
      expect(sameBytes(tail, plain.subarray(plain.length - 100))).toBe(true);
      expect(src.reads).toEqual([[body + 10 * WIRE_CHUNK, 1234 + 16]]);
      expect(await obj.plaintextSize()).toBe(plain.length);
      expect(src.reads.length).toBe(1); // the size was proven by that read
      expect((await obj.read(plain.length, 10)).length).toBe(0);
      expect((await obj.read(plain.length + 5000, 10)).length).toBe(0);
      expect((await obj.read(5, 0)).length).toBe(0);
      const all = await obj.read(0, plain.length * 2);
      expect(sameBytes(all, plain)).toBe(true);
    });

    it('authenticates the size: a cut or extended source fails it', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const env = await encryptAll(transit, 'k', plain);
      const fresh = await transit.openEncrypted('k', recording(env));
      const src = recording(env);
      const obj = await transit.openEncrypted('k', src);
      src.reads.length = 0;
      expect(await obj.plaintextSize()).toBe(plain.length);
      expect(src.reads.length).toBe(1);
      expect(await fresh.plaintextSize()).toBe(plain.length);
      for (const cut of [1, 16, 1234 + 16, 1234 + 17, WIRE_CHUNK, WIRE_CHUNK + 1]) {
        const short = env.slice(0, env.length - cut);
        const opened = await transit.openEncrypted('k', recording(short)).catch((e: unknown) => e);
        if (opened instanceof TransitError) {
          expectCode(opened, 'invalid_request');
          continue;
        }
        const o = opened as Awaited<ReturnType<typeof transit.openEncrypted>>;
        expectCode(await o.plaintextSize().catch((e: unknown) => e), 'invalid_request');
        expectCode(await o.read(0, env.length).catch((e: unknown) => e), 'invalid_request');
        // Earlier chunks are still genuine.
        expect(sameBytes(await o.read(0, 100), plain.subarray(0, 100))).toBe(true);
      }
      const longer = joined([env, Uint8Array.of(1, 2, 3)]);
      const o = await transit.openEncrypted('k', recording(longer));
      expectCode(await o.plaintextSize().catch((e: unknown) => e), 'invalid_request');
    });

    it('a tampered chunk fails the reads that cover it, and only those', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const env = await encryptAll(transit, 'k', plain);
      const body = env.length - (10 * WIRE_CHUNK + 1234 + 16);
      const bad = env.slice();
      bad[body + 4 * WIRE_CHUNK + 10] = (bad[body + 4 * WIRE_CHUNK + 10] ?? 0) ^ 0x80;
      const obj = await transit.openEncrypted('k', recording(bad));
      expect(sameBytes(await obj.read(0, 4 * CHUNK_SIZE), plain.subarray(0, 4 * CHUNK_SIZE))).toBe(
        true,
      );
      expectCode(await obj.read(4 * CHUNK_SIZE + 3, 1).catch((e: unknown) => e), 'invalid_request');
      expect(await obj.plaintextSize()).toBe(plain.length);
      // A damaged header fails the open.
      const header = env.slice();
      header[body - HEADER_SIZE + 2] = (header[body - HEADER_SIZE + 2] ?? 0) ^ 1;
      expectCode(
        await transit.openEncrypted('k', recording(header)).catch((e: unknown) => e),
        'invalid_request',
      );
    });

    it('reads Blobs, FileHandles and sources with a size function', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k', { derived: true });
      const context = Buffer.from('tenant-1').toString('base64');
      const env = await encryptAll(transit, 'k', plain, { context });
      const file = path.join(dir, `${name}.tks1`);
      await writeFile(file, env);
      const handle = await open(file, 'r');
      try {
        const sizeFn = {
          size: async () => env.length,
          read: async (o: number, l: number) => env.subarray(o, o + l),
        };
        for (const source of [new Blob([env]), handle, sizeFn]) {
          const obj = await transit.openEncrypted('k', source, { context });
          expect(await obj.plaintextSize()).toBe(plain.length);
          const got = await obj.read(CHUNK_SIZE * 2 - 3, CHUNK_SIZE + 6);
          expect(sameBytes(got, plain.subarray(CHUNK_SIZE * 2 - 3, CHUNK_SIZE * 3 + 3))).toBe(true);
        }
      } finally {
        await handle.close();
      }
      expectCode(
        await transit.openEncrypted('k', new Blob([env])).catch((e: unknown) => e),
        'invalid_request',
      );
    });

    it('refuses bad sources and ranges', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const env = await encryptAll(transit, 'k', pattern(100));
      for (const source of [
        null,
        42,
        {},
        { read: 1, size: 3 },
        { read: async () => 1, size: -1 },
      ]) {
        expectCode(
          await transit.openEncrypted('k', source as never).catch((e: unknown) => e),
          'invalid_request',
        );
      }
      expectCode(
        await transit
          .openEncrypted('k', { size: env.length, read: async () => new Uint8Array(3) })
          .catch((e: unknown) => e),
        'invalid_request',
      );
      expectCode(
        await transit.openEncrypted('missing', new Blob([env])).catch((e: unknown) => e),
        'not_found',
      );
      // A source that fails to read is an I/O failure: internal, its cause kept.
      let calls = 0;
      const flaky = {
        size: env.length,
        read: async (o: number, l: number) => {
          if (++calls > 2) throw new Error('disk on fire');
          return env.slice(o, o + l);
        },
      };
      const opened = await transit.openEncrypted('k', flaky);
      const io = expectCode(await opened.read(0, 10).catch((e: unknown) => e), 'internal');
      expect((io.cause as Error).message).toBe('disk on fire');
      const obj = await transit.openEncrypted('k', new Blob([env]));
      for (const [o, l] of [
        [-1, 1],
        [0, -1],
        [0.5, 1],
        [0, Number.NaN],
      ] as const) {
        expectCode(await obj.read(o, l).catch((e: unknown) => e), 'invalid_request');
      }
    });
  });
}
