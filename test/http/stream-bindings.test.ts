/**
 * encrypt-stream and decrypt-stream through every binding (node:http with
 * `handler.node`, `transitkit/http/node`'s `createServer`, Express mounted
 * under a prefix behind `express.json()`, Koa, and the fetch handler served
 * as a fetch runtime serves it), on real loopback sockets: round trips, the
 * envelope against the library both ways, the JSON error before the first
 * byte, and the abort (never a clean end) when decryption fails after the
 * 200 went out — seen by a node:http client and by fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BINDINGS, type Binding, bytes, served, sha256, streamPost } from './stream-support.js';

const MiB = 1024 * 1024;
const ENC = '/v1/transit/encrypt-stream/k';
const DEC = '/v1/transit/decrypt-stream/k';

/** Read a whole web stream. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) parts.push(c);
  return Buffer.concat(parts);
}

describe.each(BINDINGS)('%s binding', (binding: Binding) => {
  let s: Awaited<ReturnType<typeof served>>;
  const plain = bytes(8 * MiB + 123);
  let envelope: Buffer;
  beforeAll(async () => {
    s = await served(binding);
  });
  afterAll(async () => {
    await s.close();
  });

  it('round-trips 8 MiB, and an empty body', async () => {
    const e = await streamPost(s.url, ENC, plain, { token: s.root });
    expect(e.status, e.body.toString().slice(0, 200)).toBe(200);
    expect(e.complete).toBe(true);
    expect(e.headers['content-type']).toBe('application/octet-stream');
    expect(e.headers['cache-control']).toBe('no-store');
    expect(e.body.subarray(0, 4).toString()).toBe('TKS1');
    envelope = e.body;
    const d = await streamPost(s.url, DEC, envelope, { token: s.root });
    expect(d.status).toBe(200);
    expect(d.complete).toBe(true);
    expect(sha256(d.body)).toBe(sha256(plain));

    const empty = await streamPost(s.url, ENC, new Uint8Array(0), { token: s.root });
    expect(empty.status).toBe(200);
    const back = await streamPost(s.url, DEC, empty.body, { token: s.root });
    expect(back.status).toBe(200);
    expect(back.complete).toBe(true);
    expect(back.body.length).toBe(0);
  });

  it('an HTTP envelope opens with the library, and a library envelope over HTTP', async () => {
    const viaLib = await collect(
      new Blob([new Uint8Array(envelope)]).stream().pipeThrough(s.transit.decryptStream('k')),
    );
    expect(sha256(viaLib)).toBe(sha256(plain));
    const libEnvelope = await collect(
      new Blob([new Uint8Array(plain)]).stream().pipeThrough(s.transit.encryptStream('k')),
    );
    const d = await streamPost(s.url, DEC, libEnvelope, { token: s.root });
    expect(d.status).toBe(200);
    expect(sha256(d.body)).toBe(sha256(plain));
  });

  it('fails before the first byte with the JSON error transit would give', async () => {
    const missing = await streamPost(s.url, '/v1/transit/encrypt-stream/nope', plain, {
      token: s.root,
    });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe('application/json');
    expect(JSON.parse(missing.body.toString())).toEqual({ errors: ['encryption key not found'] });
    const garbage = await streamPost(s.url, DEC, Buffer.from('not an envelope at all'), {
      token: s.root,
    });
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body.toString()).errors).toHaveLength(1);
  });

  it('aborts the response when a chunk several MiB in is tampered with (node:http client)', async () => {
    const bad = Buffer.from(envelope);
    bad[6 * MiB] = (bad[6 * MiB] as number) ^ 1;
    const d = await streamPost(s.url, DEC, bad, { token: s.root });
    expect(d.status).toBe(200);
    expect(d.complete).toBe(false);
    expect(d.error).toBeDefined();
    // Only authenticated plaintext came out, and the tampered chunk's never did.
    expect(d.body.length).toBeLessThan(6 * MiB);
    if (binding !== 'fetch') {
      // And all of it did: the Node bindings end the connection after what was written and
      // drain the upload, so no reset throws away output in flight — every chunk but the
      // tampered one and the one the decoder holds until it knows whether it is the last.
      // (A fetch host aborts as it does; this one, like Deno's or Bun's, destroys.)
      expect(d.body.length).toBeGreaterThan(6 * MiB - 3 * 16 * 1024);
    }
    expect(sha256(d.body)).toBe(sha256(plain.subarray(0, d.body.length)));
  });

  it('aborts the response when the envelope is truncated (fetch client)', async () => {
    const cut = new Uint8Array(envelope.subarray(0, envelope.length - 1000));
    const r = await fetch(s.url + DEC, {
      method: 'POST',
      headers: { 'x-vault-token': s.root, 'content-type': 'application/octet-stream' },
      body: cut,
    });
    expect(r.status).toBe(200);
    let got = 0;
    const read = (async () => {
      for await (const c of r.body as unknown as AsyncIterable<Uint8Array>) got += c.length;
    })();
    await expect(read).rejects.toThrow();
    expect(got).toBeGreaterThan(7 * MiB);
    expect(got).toBeLessThan(plain.length);
  });
});

describe('Express behind express.json()', () => {
  it('a body that the JSON parser consumed is a 400 before the first byte, for encrypt as for decrypt', async () => {
    const s = await served('express');
    try {
      for (const path of [ENC, DEC]) {
        const r = await streamPost(s.url, path, Buffer.from('{"a":1}'), {
          token: s.root,
          headers: { 'content-type': 'application/json' },
        });
        expect(r.status, path).toBe(400);
        expect(JSON.parse(r.body.toString()).errors[0], path).toMatch(/parsed by a body parser/);
      }
    } finally {
      await s.close();
    }
  });
});
