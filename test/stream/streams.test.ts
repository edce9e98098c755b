/**
 * `encryptStream` / `decryptStream` on both backends: round trips at the
 * chunk boundaries, the envelope layout, header-first output, the failures
 * before the first byte (unknown key, a key that cannot encrypt), every kind
 * of damage erroring the decrypt stream (never a clean end), cross-backend
 * envelopes, and backpressure (the encryptor does not read ahead of its reader).
 */
import { describe, expect, it } from 'vitest';
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
  readableOf,
  sameBytes,
  settleStream,
} from './support.js';

const LENGTHS = [0, 1, 16_383, 16_384, 16_385, 3 * CHUNK_SIZE, 3 * 1024 * 1024 + 7];

/** Envelope size for a plaintext of `n` bytes under a wrapped key of `w` bytes. */
const envelopeSize = (n: number, w: number) =>
  6 + w + HEADER_SIZE + Math.floor(n / CHUNK_SIZE) * WIRE_CHUNK + (n % CHUNK_SIZE) + 16;

for (const [name, backend] of BACKENDS) {
  describe(`streams on ${name}`, () => {
    it('round-trips every boundary length, whatever the piece sizes', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      for (const n of LENGTHS) {
        const plain = pattern(n, n + 1);
        for (const piece of n > CHUNK_SIZE * 4 ? [65_536] : PIECES) {
          const env = await encryptAll(transit, 'k', plain, undefined, piece);
          const wrappedLen = ((env[4] ?? 0) << 8) | (env[5] ?? 0);
          expect(env.length, `n=${n}`).toBe(envelopeSize(n, wrappedLen));
          const back = await decryptAll(transit, 'k', env, undefined, piece === 1 ? 7 : piece);
          expect(back.error, `n=${n} piece=${piece}`).toBeUndefined();
          expect(sameBytes(back.bytes, plain), `n=${n} piece=${piece}`).toBe(true);
        }
      }
    });

    it('writes the TKS1 layout: magic, length, the transit ciphertext of the data key', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const env = await encryptAll(transit, 'k', pattern(10));
      expect(new TextDecoder().decode(env.subarray(0, 4))).toBe('TKS1');
      const len = ((env[4] ?? 0) << 8) | (env[5] ?? 0);
      const wrapped = new TextDecoder().decode(env.subarray(6, 6 + len));
      expect(wrapped).toMatch(/^vault:v1:[A-Za-z0-9+/]+=*$/);
      // Plain transit decrypt gives the 32-byte data key.
      const { plaintext } = await transit.decrypt('k', { ciphertext: wrapped });
      expect(Buffer.from(plaintext, 'base64').length).toBe(32);
      // Two encryptions of the same bytes share nothing but the layout.
      const again = await encryptAll(transit, 'k', pattern(10));
      expect(sameBytes(again.subarray(6 + len), env.subarray(6 + len))).toBe(false);
    });

    it('enqueues the whole envelope header as its first chunk, before reading any input', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const ts = transit.encryptStream('k');
      const reader = ts.readable.getReader();
      const first = await reader.read();
      const head = first.value as Uint8Array;
      const len = ((head[4] ?? 0) << 8) | (head[5] ?? 0);
      expect(head.length).toBe(6 + len + HEADER_SIZE);
      const writer = ts.writable.getWriter();
      await writer.close();
      const last = await reader.read();
      expect(last.value?.length).toBe(16); // the empty final chunk
      expect((await reader.read()).done).toBe(true);
    });

    it('fails before the first byte for an unknown key or a key that cannot encrypt', async () => {
      const transit = engineOn(backend);
      await transit.createKey('signer', { type: 'ed25519' });
      await transit.createKey('derived', { derived: true });
      const cases: Array<[string, Record<string, unknown> | undefined, string, RegExp]> = [
        ['missing', undefined, 'not_found', /encryption key not found/],
        ['signer', undefined, 'invalid_request', /not supported for key type ed25519/],
        ['derived', undefined, 'invalid_request', /context/],
        ['derived', { context: '***' }, 'invalid_request', /context/],
        ['derived', { keyVersion: 9 }, 'invalid_request', /version/],
        ['Bad/Name', undefined, 'invalid_request', /./],
        [
          'derived',
          { context: 'eA==', key_version: 1 },
          'invalid_request',
          /unknown stream option 'key_version'/,
        ],
      ];
      for (const [key, options, code, message] of cases) {
        const out = await settleStream(
          readableOf(pattern(50_000)).pipeThrough(transit.encryptStream(key, options)),
        );
        expect(out.pieces, key).toEqual([]);
        expect(expectCode(out.error, code).message, key).toMatch(message);
      }
      // Nothing was created by the failed attempt (no upsert).
      await expect(transit.readKey('missing')).rejects.toThrow(TransitError);
    });

    it('errors (never a clean end) on tamper, truncation, reordering, trailing data, bad header', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const plain = pattern(3 * CHUNK_SIZE + 100);
      const env = await encryptAll(transit, 'k', plain);
      const len = ((env[4] ?? 0) << 8) | (env[5] ?? 0);
      const body = 6 + len + HEADER_SIZE;
      const flip = (i: number) => {
        const c = env.slice();
        c[i] = (c[i] ?? 0) ^ 1;
        return c;
      };
      const swap = env.slice();
      swap.set(env.subarray(body, body + WIRE_CHUNK), body + WIRE_CHUNK);
      swap.set(env.subarray(body + WIRE_CHUNK, body + 2 * WIRE_CHUNK), body);
      const damaged: Array<[string, Uint8Array]> = [
        ['magic', flip(0)],
        ['length field', flip(5)],
        ['wrapped key', flip(20)],
        ['salt', flip(6 + len)],
        ['commitment', flip(body - 1)],
        ['first chunk', flip(body + 5)],
        ['final tag', flip(env.length - 1)],
        ['cut at a chunk boundary', env.slice(0, body + 3 * WIRE_CHUNK)],
        ['cut mid-chunk', env.slice(0, body + WIRE_CHUNK + 99)],
        ['cut in the header', env.slice(0, body - 3)],
        ['cut in the prefix', env.slice(0, 8)],
        ['empty', new Uint8Array(0)],
        ['one byte appended', joined([env, Uint8Array.of(0)])],
        ['a chunk appended', joined([env, env.subarray(body, body + WIRE_CHUNK)])],
        ['chunks swapped', swap],
        ['chunk dropped', joined([env.subarray(0, body), env.subarray(body + WIRE_CHUNK)])],
      ];
      for (const [what, bytes] of damaged) {
        const out = await decryptAll(transit, 'k', bytes);
        expect(out.error, what).toBeInstanceOf(TransitError);
        expectCode(out.error, 'invalid_request');
        // Whatever came out is a genuine prefix, in whole chunks.
        expect(out.bytes.length % CHUNK_SIZE, what).toBe(0);
        expect(sameBytes(out.bytes, plain.subarray(0, out.bytes.length)), what).toBe(true);
      }
    });

    it('decrypts only with the key that wrapped, and the same context', async () => {
      const transit = engineOn(backend);
      await transit.createKey('a');
      await transit.createKey('b');
      const env = await encryptAll(transit, 'a', pattern(20_000));
      expectCode((await decryptAll(transit, 'b', env)).error, 'invalid_request');
      expectCode((await decryptAll(transit, 'nope', env)).error, 'not_found');
      const typo = await decryptAll(transit, 'a', env, { contxt: 'eA==' } as never);
      expect(expectCode(typo.error, 'invalid_request').message).toMatch(/unknown stream option/);
      // A wrapped key from another envelope (same key, valid) fails the commitment.
      const other = await encryptAll(transit, 'a', pattern(20_000));
      const lenA = ((env[4] ?? 0) << 8) | (env[5] ?? 0);
      const lenB = ((other[4] ?? 0) << 8) | (other[5] ?? 0);
      expect(lenA).toBe(lenB);
      const spliced = joined([other.subarray(0, 6 + lenB), env.subarray(6 + lenA)]);
      const out = await decryptAll(transit, 'a', spliced);
      expect(expectCode(out.error, 'invalid_request').message).toMatch(/authentication failed/);
      expect(out.bytes.length).toBe(0);
    });

    it('refuses a writer that is not bytes', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      const ts = transit.encryptStream('k');
      const writer = ts.writable.getWriter();
      const out = settleStream(ts.readable);
      await writer.write('text' as unknown as Uint8Array).catch(() => {});
      expectCode((await out).error, 'invalid_request');
    });

    it('does not read ahead of a reader that stops (bounded queues)', async () => {
      const transit = engineOn(backend);
      await transit.createKey('k');
      let pulled = 0;
      const source = new ReadableStream<Uint8Array>({
        pull(c) {
          pulled += 65_536;
          c.enqueue(new Uint8Array(65_536));
        },
      });
      const reader = source.pipeThrough(transit.encryptStream('k')).getReader();
      await reader.read(); // the header
      await reader.read(); // some ciphertext
      for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
      // Without a reader the pipe stops after the queues fill (a few 64 KiB pieces).
      expect(pulled).toBeLessThanOrEqual(8 * 65_536);
      await reader.cancel();
    });
  });
}

describe('streams across backends', () => {
  it('an envelope from either backend decrypts on the other, on one storage', async () => {
    const { MemoryStorage } = await import('../../src/storage/memory.js');
    const { Transit } = await import('../../src/transit/transit.js');
    const storage = new MemoryStorage();
    const [[, b1], [, b2]] = BACKENDS as [
      [string, (typeof BACKENDS)[0][1]],
      [string, (typeof BACKENDS)[0][1]],
    ];
    const one = new Transit({ storage, crypto: b1, autoRotate: false });
    const two = new Transit({ storage, crypto: b2, autoRotate: false });
    await one.createKey('k');
    const plain = pattern(40_000);
    for (const [from, to] of [
      [one, two],
      [two, one],
    ] as const) {
      const env = await encryptAll(from, 'k', plain);
      const back = await decryptAll(to, 'k', env);
      expect(back.error).toBeUndefined();
      expect(sameBytes(back.bytes, plain)).toBe(true);
    }
  });
});
