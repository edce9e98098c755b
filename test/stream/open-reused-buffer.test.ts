/**
 * `openEncrypted` (src/stream/open.ts) copies the first source read (the
 * 6-byte fixed prefix) before the second: a source that reads into one
 * reusable buffer (allowed by `ReadAtSource`'s contract: "length bytes at
 * offset") overwrote it, corrupting the Cobblestone context, and a genuine
 * envelope failed to open.
 */
import { describe, expect, it } from 'vitest';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { CHUNK_SIZE } from '../../src/stream/cobblestone.js';
import { readEnvelopeHeader } from '../../src/stream/header.js';
import { encryptAll, engineOn, pattern, sameBytes } from '../stream/support.js';

/** A source that reads into one reused 2 MiB buffer and returns a view of it. */
function pooled(bytes: Uint8Array) {
  const buf = new Uint8Array(2 * 1024 * 1024);
  return {
    size: bytes.length,
    async read(offset: number, length: number) {
      const n = Math.min(length, bytes.length - offset);
      buf.set(bytes.subarray(offset, offset + n), 0);
      return buf.subarray(0, n);
    },
  };
}

describe('openEncrypted with a source that reuses its read buffer', () => {
  it('opens a genuine envelope and reads it (sequential reads only)', async () => {
    const transit = engineOn(nodeBackend);
    await transit.createKey('k');
    const plain = pattern(3 * CHUNK_SIZE + 10, 3);
    const env = await encryptAll(transit, 'k', plain);
    // The same source serves readEnvelopeHeader and sequential chunk reads fine.
    expect((await readEnvelopeHeader(pooled(env))).keyVersion).toBe(1);
    const opened = await transit.openEncrypted('k', pooled(env)).catch((e: unknown) => e);
    expect(opened instanceof Error ? opened.message : 'opened').toBe('opened');
    const obj = opened as Awaited<ReturnType<typeof transit.openEncrypted>>;
    expect(sameBytes(await obj.read(0, plain.length), plain)).toBe(true);
  });

  it('control: the same source with each read copied opens and reads fine', async () => {
    const transit = engineOn(nodeBackend);
    await transit.createKey('k');
    const plain = pattern(3 * CHUNK_SIZE + 10, 3);
    const env = await encryptAll(transit, 'k', plain);
    const src = pooled(env);
    const copying = {
      size: src.size,
      read: async (o: number, l: number) => (await src.read(o, l)).slice(),
    };
    const obj = await transit.openEncrypted('k', copying);
    expect(sameBytes(await obj.read(0, plain.length), plain)).toBe(true);
  });
});
