/**
 * How bytes flow through the streaming routes on a real socket
 * (`transitkit/http/node`'s `createServer`): the stream limit
 * (`maxStreamBytes`: 413 when declared or reached before the first output
 * byte, an aborted response after it), backpressure (a client that stops
 * reading stops the server reading its upload), a client that goes away
 * mid-stream (the transform and the body are released, nothing in flight),
 * an upload cut short (encrypt never seals a truncated input), and 256 MiB
 * both ways in one pass with a SHA-256 check.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { bytes, generated, sha256, streamPost, streamServices } from './stream-support.js';

const MiB = 1024 * 1024;
const ENC = '/v1/transit/encrypt-stream/k';
const DEC = '/v1/transit/decrypt-stream/k';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/**
 * A server whose transit records how much of each stream's input was
 * written into the transform and whether the transform was torn down.
 */
async function instrumented(options: Parameters<typeof createHandler>[1] = {}) {
  const s = await streamServices();
  const seen = { written: 0, stopped: false, closed: false };
  const original = s.transit.encryptStream.bind(s.transit);
  s.transit.encryptStream = (name, opts) => {
    const inner = original(name, opts);
    const writer = inner.writable.getWriter();
    const writable = new WritableStream<Uint8Array>({
      async write(chunk) {
        seen.written += chunk.byteLength;
        try {
          await writer.write(chunk);
        } catch (e) {
          seen.stopped = true;
          throw e;
        }
      },
      close: () => {
        seen.closed = true;
        return writer.close();
      },
      abort: (reason) => {
        seen.stopped = true;
        return writer.abort(reason);
      },
    });
    return { writable, readable: inner.readable } as TransformStream<Uint8Array, Uint8Array>;
  };
  const handler = createHandler(s.services, { logger: { error: () => {} }, ...options });
  const server: TransitkitServer = createServer(handler);
  const { url } = await server.listen(0);
  cleanup.push(async () => {
    await server.close({ drainMs: 0 });
    await s.transit.close();
  });
  return { ...s, url, server, seen };
}

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** An endless upload of 64 KiB chunks, sent as fast as the socket takes it. */
function* endless(): Generator<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(42);
  for (;;) yield chunk;
}

describe('the stream limit (maxStreamBytes)', () => {
  it('a declared Content-Length past it: 413 before anything is read', async () => {
    const s = await instrumented({ maxStreamBytes: MiB });
    const r = await streamPost(s.url, ENC, bytes(MiB + 1), { token: s.root });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body.toString())).toEqual({ errors: ['http: request body too large'] });
    expect(s.seen.written).toBe(0);
    // Exactly the limit passes, and maxRequestBytes (32 MiB) does not apply.
    const big = await instrumented({ maxStreamBytes: 40 * MiB, maxRequestBytes: 1024 });
    const ok = await streamPost(big.url, ENC, bytes(40 * MiB), { token: big.root });
    expect(ok.status).toBe(200);
    expect(ok.complete).toBe(true);
  });

  it('reached before the first output byte (chunked decrypt): 413', async () => {
    const s = await instrumented({ maxStreamBytes: 1000 });
    const envelope = (await streamPost(s.url, ENC, bytes(200), { token: s.root })).body;
    expect(envelope.length).toBeLessThan(1000);
    const pad = Buffer.concat([envelope, Buffer.alloc(4000)]);
    // Chunked (no Content-Length): the limit is found while reading.
    const r = await streamPost(s.url, DEC, [pad.subarray(0, 500), pad.subarray(500)], {
      token: s.root,
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body.toString())).toEqual({ errors: ['http: request body too large'] });
  });

  it('reached after the 200 (chunked encrypt): the response is aborted', async () => {
    const s = await instrumented({ maxStreamBytes: 4 * MiB });
    const g = generated(12 * MiB);
    const r = await streamPost(s.url, ENC, g.chunks(), { token: s.root });
    expect(r.status).toBe(200);
    expect(r.complete).toBe(false);
    expect(r.error).toBeDefined();
    expect(s.seen.closed).toBe(false);
    expect(s.seen.written).toBeLessThanOrEqual(4 * MiB);
  });
});

/** An encrypt-stream upload that writes for as long as the socket takes it. */
function endlessUpload(url: string, token: string) {
  const req = request(url + ENC, {
    method: 'POST',
    headers: { 'x-vault-token': token, 'content-type': 'application/octet-stream' },
  });
  req.on('error', () => {});
  const gen = endless();
  const pump = () => {
    while (!req.destroyed && req.write(gen.next().value as Uint8Array)) {}
  };
  req.on('drain', pump);
  pump();
  return req;
}

describe('backpressure and going away', () => {
  it('a client that stops reading stops the server reading its upload', async () => {
    const s = await instrumented();
    let received = 0;
    const req = endlessUpload(s.url, s.root);
    const res = await new Promise<import('node:http').IncomingMessage>((r) =>
      req.on('response', r),
    );
    expect(res.statusCode).toBe(200);
    res.on('data', (c: Buffer) => {
      received += c.length;
      if (received > 2 * MiB) res.pause();
    });
    await until(() => received > 2 * MiB);
    await new Promise((r) => setTimeout(r, 300));
    const stalled = s.seen.written;
    await new Promise((r) => setTimeout(r, 500));
    // Nothing more is read while the client reads nothing; and the server
    // holds only socket buffers' worth beyond what the client took.
    expect(s.seen.written).toBe(stalled);
    expect(stalled - received).toBeLessThan(16 * MiB);
    req.destroy();
  });

  it('a client that goes away mid-stream releases the transform and the body', async () => {
    const s = await instrumented();
    let received = 0;
    const req = endlessUpload(s.url, s.root);
    req.on('response', (res) => {
      res.on('error', () => {});
      res.on('data', (c: Buffer) => {
        received += c.length;
        if (received > 4 * MiB) req.destroy();
      });
    });
    await until(() => req.destroyed);
    await until(() => s.seen.stopped && s.server.inFlight === 0);
    const after = s.seen.written;
    await new Promise((r) => setTimeout(r, 300));
    expect(s.seen.written).toBe(after);
    expect(s.seen.closed).toBe(false);
  });

  it('an upload cut short is never sealed as a whole envelope', async () => {
    const s = await instrumented();
    const g = generated(8 * MiB);
    async function* cut() {
      let n = 0;
      for (const c of g.chunks()) {
        yield c;
        n += c.length;
        if (n > 3 * MiB) throw new Error('the uploader crashed');
      }
    }
    const r = await streamPost(s.url, ENC, cut(), { token: s.root });
    await until(() => s.seen.stopped);
    expect(s.seen.closed).toBe(false);
    expect(r.complete).toBe(false);
  });
});

describe('hundreds of MiB over a real socket', () => {
  it('256 MiB: plaintext → encrypt-stream → decrypt-stream → SHA-256, in one pass', async () => {
    const s = await instrumented();
    const total = 256 * MiB;
    const g = generated(total);
    // The encrypt response is piped straight into the decrypt request, so
    // neither side ever holds the object.
    const encrypted = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = request(s.url + ENC, {
        method: 'POST',
        headers: { 'x-vault-token': s.root, 'content-type': 'application/octet-stream' },
      });
      req.on('response', resolve);
      req.on('error', reject);
      const it = g.chunks();
      const pump = () => {
        for (;;) {
          const n = it.next();
          if (n.done) {
            req.end();
            return;
          }
          if (!req.write(n.value)) return;
        }
      };
      req.on('drain', pump);
      pump();
    });
    expect(encrypted.statusCode).toBe(200);
    const { createHash } = await import('node:crypto');
    const out = createHash('sha256');
    let outBytes = 0;
    let envelopeBytes = 0;
    await new Promise<void>((resolve, reject) => {
      const req = request(s.url + DEC, {
        method: 'POST',
        headers: { 'x-vault-token': s.root, 'content-type': 'application/octet-stream' },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        expect(res.statusCode).toBe(200);
        res.on('data', (c: Buffer) => {
          out.update(c);
          outBytes += c.length;
        });
        res.on('end', () => (res.complete ? resolve() : reject(new Error('incomplete'))));
        res.on('error', reject);
      });
      encrypted.on('data', (c: Buffer) => {
        envelopeBytes += c.length;
      });
      encrypted.on('error', reject);
      encrypted.pipe(req);
    });
    expect(outBytes).toBe(total);
    expect(envelopeBytes).toBeGreaterThan(total);
    expect(out.digest('hex')).toBe(g.sha256());
    expect(sha256(Buffer.alloc(0))).toMatch(/^e3b0/);
  }, 180_000);
});
