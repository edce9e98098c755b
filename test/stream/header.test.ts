/**
 * `readEnvelopeHeader`: the key version that wrapped an envelope's data key,
 * read with no key — from the whole envelope or only its first bytes, from a
 * Blob, a real file handle or a custom source (two reads, both at the start);
 * a custom ciphertext prefix; the rotation campaign it exists for; and every
 * malformed header refused with `invalid_request`, never another error.
 */
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import { HEADER_SIZE } from '../../src/stream/cobblestone.js';
import { readEnvelopeHeader } from '../../src/stream/header.js';
import { Transit } from '../../src/transit/transit.js';
import { encryptAll, expectCode, pattern } from './support.js';

const dir = await mkdtemp(path.join(tmpdir(), 'tk-header-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `"TKS1" ‖ BE16(len) ‖ wrapped` for any `wrapped` bytes. */
function prefixOf(wrapped: Uint8Array, len = wrapped.length): Uint8Array {
  const out = new Uint8Array(6 + wrapped.length);
  out.set(new TextEncoder().encode('TKS1'), 0);
  out[4] = len >>> 8;
  out[5] = len & 0xff;
  out.set(wrapped, 6);
  return out;
}

const text = (s: string) => new TextEncoder().encode(s);

describe('readEnvelopeHeader', () => {
  it('names the wrapping version, as transit/decrypt reads the wrapped key', async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('backups');
    const plain = pattern(40_000, 3);
    const v1 = await encryptAll(transit, 'backups', plain);
    await transit.rotateKey('backups');
    const v2 = await encryptAll(transit, 'backups', plain);
    const pinned = await encryptAll(transit, 'backups', plain, { keyVersion: 1 });

    const h1 = await readEnvelopeHeader(v1);
    expect(h1.keyVersion).toBe(1);
    expect((await readEnvelopeHeader(v2)).keyVersion).toBe(2);
    expect((await readEnvelopeHeader(pinned)).keyVersion).toBe(1);

    // The wrapped key is the transit ciphertext of a 32-byte data key, and the
    // header is exactly the bytes before the Cobblestone ciphertext.
    expect(h1.wrappedKey).toMatch(/^vault:v1:/);
    const { plaintext } = await transit.decrypt('backups', { ciphertext: h1.wrappedKey });
    expect(Buffer.from(plaintext, 'base64').length).toBe(32);
    expect(h1.headerLength).toBe(6 + text(h1.wrappedKey).length);
    expect(new TextDecoder().decode(v1.subarray(6, h1.headerLength))).toBe(h1.wrappedKey);
    await transit.close();
  });

  it('reads only the header: two reads at the start, and the first bytes are enough', async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('k');
    const env = await encryptAll(transit, 'k', pattern(100_000, 5));
    const whole = await readEnvelopeHeader(env);

    const reads: Array<[number, number]> = [];
    const source = {
      size: env.length,
      async read(offset: number, length: number) {
        reads.push([offset, length]);
        return env.slice(offset, offset + length);
      },
    };
    expect(await readEnvelopeHeader(source)).toEqual(whole);
    expect(reads).toEqual([
      [0, 6],
      [6, whole.headerLength - 6],
    ]);

    // A ranged GET of the first bytes, as a scan of an object store would do.
    expect(await readEnvelopeHeader(env.slice(0, whole.headerLength))).toEqual(whole);
    expect(await readEnvelopeHeader(env.slice(0, whole.headerLength + HEADER_SIZE))).toEqual(whole);
    expect(await readEnvelopeHeader(new Blob([env]))).toEqual(whole);

    const file = path.join(dir, 'object.tks1');
    await writeFile(file, env);
    const handle = await open(file);
    try {
      expect(await readEnvelopeHeader(handle)).toEqual(whole);
    } finally {
      await handle.close();
    }
    await transit.close();
  });

  it('reads envelopes of an engine with its own ciphertext prefix', async () => {
    const transit = new Transit({ autoRotate: false, prefix: 'tk' });
    await transit.createKey('k');
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    const header = await readEnvelopeHeader(await encryptAll(transit, 'k', pattern(10, 1)));
    expect(header.keyVersion).toBe(3);
    expect(header.wrappedKey).toMatch(/^tk:v3:/);
    await transit.close();
  });

  it('finds the envelopes a raised min_decryption_version would retire', async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('backups');
    const objects: Uint8Array<ArrayBuffer>[] = [];
    for (let i = 0; i < 3; i++) {
      objects.push(await encryptAll(transit, 'backups', pattern(1000 + i, i + 1)));
      await transit.rotateKey('backups');
    }
    // Versions 1, 2, 3 wrap the three objects; the latest is 4.
    const versions = await Promise.all(
      objects.map(async (o) => (await readEnvelopeHeader(o)).keyVersion),
    );
    expect(versions).toEqual([1, 2, 3]);
    await transit.updateKeyConfig('backups', { min_decryption_version: 3 });
    const retired = objects.filter((_, i) => (versions[i] ?? 0) < 3);
    expect(retired.length).toBe(2);
    for (const o of retired) {
      expectCode(
        await transit.openEncrypted('backups', new Blob([o])).catch((e: unknown) => e),
        'invalid_request',
      );
    }
    await transit.close();
  });

  it('refuses what is not a TKS1 header with invalid_request', async () => {
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ['empty', new Uint8Array(0), /header takes 6 bytes, the source holds 0/],
      ['three bytes of the magic', text('TKS'), /header takes 6 bytes, the source holds 3/],
      ['a short file that is no envelope', text('abc'), /bad magic/],
      ['another magic', text('TKS2\0\u0005vault'), /bad magic/],
      ['a plain file', text('hello, world'), /bad magic/],
      ['an empty wrapped key', prefixOf(new Uint8Array(0)), /empty wrapped key/],
      [
        'a wrapped key cut short',
        prefixOf(text('vault:v1:abcd'), 40),
        /header takes 46 bytes, the source holds 19/,
      ],
      ['a wrapped key that is not UTF-8', prefixOf(Uint8Array.of(0x76, 0xff, 0xfe)), /not UTF-8/],
      ['a wrapped key with no version', prefixOf(text('vault:abcd')), /not a transit ciphertext/],
      ['version 0', prefixOf(text('vault:v0:abcd')), /not a transit ciphertext/],
      ['version 00', prefixOf(text('vault:v00:abcd')), /not a transit ciphertext/],
      ['16 digits', prefixOf(text('vault:v1000000000000000:abcd')), /not a transit ciphertext/],
      ['a version with a sign', prefixOf(text('vault:v+1:abcd')), /not a transit ciphertext/],
      ['an empty body', prefixOf(text('vault:v1:')), /not a transit ciphertext/],
      [
        'a 33-character prefix',
        prefixOf(text(`${'p'.repeat(33)}:v1:abcd`)),
        /not a transit ciphertext/,
      ],
    ];
    for (const [what, bytes, message] of cases) {
      const error = expectCode(
        await readEnvelopeHeader(bytes).catch((e: unknown) => e),
        'invalid_request',
      );
      expect(error.message, what).toMatch(/^stream: not a TKS1 envelope/);
      expect(error.message, what).toMatch(message);
    }
    for (const source of [42, null, 'TKS1', {}, { read: 1 }]) {
      expectCode(
        await readEnvelopeHeader(source as never).catch((e: unknown) => e),
        'invalid_request',
      );
    }
  });

  it('answers any bytes with a header or invalid_request, nothing else', async () => {
    const valid = prefixOf(text('vault:v12:AAAA'));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 80 }),
          // Valid headers with one byte changed, cut or appended.
          fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([i, b]) => {
            const c = valid.slice();
            c[i] = b;
            return c;
          }),
          fc.nat(valid.length).map((n) => valid.slice(0, n)),
        ),
        async (bytes) => {
          const out = await readEnvelopeHeader(bytes).catch((e: unknown) => e);
          if (out instanceof TransitError) {
            expect(out.code).toBe('invalid_request');
            return;
          }
          expect(out).toMatchObject({ keyVersion: expect.any(Number) });
          const header = out as Awaited<ReturnType<typeof readEnvelopeHeader>>;
          expect(header.headerLength).toBeLessThanOrEqual(bytes.length);
          expect(Number.isSafeInteger(header.keyVersion) && header.keyVersion >= 1).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
    expect((await readEnvelopeHeader(valid)).keyVersion).toBe(12);
    // Leading zeros read as transit/decrypt reads them.
    expect((await readEnvelopeHeader(prefixOf(text('vault:v007:AAAA')))).keyVersion).toBe(7);
    expect((await readEnvelopeHeader(prefixOf(text('vault:v999999999999999:A')))).keyVersion).toBe(
      999_999_999_999_999,
    );
  });
});
