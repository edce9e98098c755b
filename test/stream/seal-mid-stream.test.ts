/**
 * Streams and random-access objects made from `node.transit` before a seal
 * stop at it: each checks the engine it started on before every step, wipes
 * what it holds of the data key and fails `sealed` — as the HTTP stream
 * routes abort on a seal (test/http/stream-guard.test.ts) and as
 * src/transit/lifecycle.ts promises ("nothing made before can use a key
 * again").
 */
import { describe, expect, it } from 'vitest';
import { outcome } from '../helpers/gated-storage.js';
import { autoNodeWithKey, envelopeOf } from '../helpers/test-nodes.js';

/**
 * A stream's writer, and its output read to the end in the background:
 * bytes read so far, and how the reading ended (`clean end` or `error <code>`).
 */
function drain(t: TransformStream<Uint8Array, Uint8Array>) {
  const r = t.readable.getReader();
  let got = 0;
  const reading = (async () => {
    for (;;) {
      const x = await r.read();
      if (x.done) return 'clean end';
      got += x.value.length;
    }
  })().catch((e: { code?: string }) => `error ${e.code}`);
  return { w: t.writable.getWriter(), got: () => got, reading };
}

async function setup() {
  const node = await autoNodeWithKey();
  const env = await envelopeOf(node, new Uint8Array(200_000).fill(9));
  return { node, env };
}

describe('streams across a seal', () => {
  it('an object opened with openEncrypted before a seal refuses reads after it', async () => {
    const { node, env } = await setup();
    const obj = await node.transit.openEncrypted('k', new Blob([env as BlobPart]));
    expect((await obj.read(0, 10)).length).toBe(10);
    await node.seal();
    const r = await outcome(obj.read(100_000, 10));
    expect(r).toMatchObject({ ok: false, code: 'sealed' });
  });

  it('a decryptStream mid-way when the node seals releases no more plaintext', async () => {
    const { node, env } = await setup();
    const { w, got, reading } = drain(node.transit.decryptStream('k'));
    await w.write(env.subarray(0, 100_000));
    while (got() < 50_000) await new Promise((res) => setTimeout(res, 5));
    const before = got();
    await node.seal();
    await outcome(
      (async () => {
        await w.write(env.subarray(100_000));
        await w.close();
      })(),
    );
    expect(await reading).toBe('error sealed');
    // Nothing past what was released before the seal (at most the chunks already queued).
    expect(got()).toBeLessThan(100_000);
    expect(before).toBeGreaterThan(0);
  });

  it('an encryptStream mid-way when the node seals encrypts no more input', async () => {
    const { node } = await setup();
    const { w, got, reading } = drain(node.transit.encryptStream('k'));
    await w.write(new Uint8Array(50_000));
    while (got() < 40_000) await new Promise((res) => setTimeout(res, 5));
    await node.seal();
    await outcome(
      (async () => {
        await w.write(new Uint8Array(100_000));
        await w.close();
      })(),
    );
    expect(await reading).toBe('error sealed');
  });
});
