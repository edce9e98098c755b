/**
 * Recycled output pieces of a pushed encrypt-stream (adapters/http/output-pool.ts):
 * the pool on its own, the push path with a sink that reports writes (pieces
 * come back and are reused; the output still opens) and one that does not
 * (every piece is fresh memory), and on real sockets a response whose `write`
 * a middleware wrapped — a wrapper may call back before it is done with a
 * piece, so nothing is recycled there and the output stays intact.
 */
import { createServer as createHttpServer, request, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { OutputPool } from '../../adapters/http/output-pool.js';
import { writesThrough } from '../../adapters/http/stream-node.js';
import {
  type PushHandlers,
  type PushSource,
  pushedBodyOf,
  pushReply,
} from '../../adapters/http/stream-push.js';
import { WIRE_CHUNK } from '../../src/stream/cobblestone.js';
import { coderOf } from '../../src/stream/transforms.js';
import { bytes, sha256, streamPost, streamServices } from './stream-support.js';

const MiB = 1024 * 1024;
const PIECE = 4 * WIRE_CHUNK;

describe('OutputPool', () => {
  it('hands out views over pooled buffers, reused only once given back', () => {
    const pool = new OutputPool();
    const a = pool.alloc(PIECE);
    const b = pool.alloc(3 * WIRE_CHUNK);
    expect(a.buffer).not.toBe(b.buffer);
    expect(b.length).toBe(3 * WIRE_CHUNK);
    const giveA = pool.returner(a);
    expect(giveA).toBeTypeOf('function');
    expect(pool.returner(a)).toBeUndefined(); // one returner per piece
    const c = pool.alloc(PIECE);
    expect(c.buffer).not.toBe(a.buffer); // a is not back yet
    giveA?.();
    giveA?.(); // twice is harmless: one entry
    const d = pool.alloc(WIRE_CHUNK);
    expect(d.buffer).toBe(a.buffer);
    const e = pool.alloc(PIECE);
    expect(e.buffer).not.toBe(a.buffer);
    expect(pool.created).toBe(4);
  });

  it('larger pieces are fresh and never pooled; the free list is bounded', () => {
    const pool = new OutputPool();
    const big = pool.alloc(PIECE + 1);
    expect(big.length).toBe(PIECE + 1);
    expect(pool.returner(big)).toBeUndefined();
    expect(pool.returner(new Uint8Array(10))).toBeUndefined();
    const many = Array.from({ length: 20 }, () => pool.alloc(PIECE));
    for (const m of many) pool.returner(m)?.();
    const again = Array.from({ length: 20 }, () => pool.alloc(PIECE));
    const reused = again.filter((x) => many.some((m) => m.buffer === x.buffer)).length;
    expect(reused).toBe(8);
  });
});

/** A source that pushes `input` in 64 KiB events, one per macrotask. */
function eventSource(input: Uint8Array): PushSource {
  let h: PushHandlers | undefined;
  let paused = false;
  let at = 0;
  const step = () => {
    if (!h || paused) return;
    if (at >= input.length) {
      h.end();
      h = undefined;
      return;
    }
    h.data(input.subarray(at, at + 65_536));
    at += 65_536;
    setImmediate(step);
  };
  return {
    start(handlers) {
      h = handlers;
      setImmediate(step);
    },
    pause: () => {
      paused = true;
    },
    resume: () => {
      if (!paused) return;
      paused = false;
      setImmediate(step);
    },
    stop: () => {
      h = undefined;
    },
  };
}

/** Encrypt `input` through the push path into a sink; `report`: call `written` after copying. */
async function pushed(input: Uint8Array, report: boolean) {
  const s = await streamServices();
  const coder = coderOf(s.transit.encryptStream('k'));
  if (!coder) throw new Error('no coder');
  const reply = await pushReply({
    coder,
    source: eventSource(input),
    maxStreamBytes: Number.POSITIVE_INFINITY,
    clock: { now: () => 0 },
    recheckMs: 5000,
    failedLate: () => {},
    headers: {},
  });
  const copies: Buffer[] = [];
  const memory = new Set<ArrayBufferLike>();
  const done = new Promise<void>((resolve, reject) => {
    const body = pushedBodyOf(reply);
    if (!body) throw new Error('not pushed');
    body({
      write(b, written) {
        copies.push(Buffer.from(b)); // the bytes as they were when written
        memory.add(b.buffer);
        // Report after a turn, as a socket would; the piece must not change before.
        if (report && written) setImmediate(written);
        return true;
      },
      end: resolve,
      abort: () => reject(new Error('aborted')),
    });
  });
  await done;
  const envelope = Buffer.concat(copies);
  const parts: Uint8Array[] = [];
  const out = new Blob([new Uint8Array(envelope)])
    .stream()
    .pipeThrough(s.transit.decryptStream('k'));
  for await (const c of out as unknown as AsyncIterable<Uint8Array>) parts.push(c);
  await s.transit.close();
  return { plain: Buffer.concat(parts), memory: memory.size, pieces: copies.length };
}

describe('the push path with an output pool', () => {
  const input = bytes(4 * MiB + 5);

  it('reuses pieces a sink reports written, and the output still opens', async () => {
    const r = await pushed(input, true);
    expect(sha256(r.plain)).toBe(sha256(input));
    expect(r.pieces).toBeGreaterThan(60);
    expect(r.memory).toBeLessThan(8); // header, a few pooled buffers, the final chunk
  });

  it('gives every piece fresh memory when the sink never reports', async () => {
    const r = await pushed(input, false);
    expect(sha256(r.plain)).toBe(sha256(input));
    expect(r.memory).toBe(r.pieces);
  });
});

describe('a response whose write a middleware wrapped', () => {
  let url = '';
  let root = '';
  let close: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const s = await streamServices();
    root = s.root;
    const handler = createHandler(s.services, { logger: { error: () => {} } });
    // Calls back at once and writes a turn later: legal for a buffering wrapper,
    // and exactly what recycling must not trust.
    const server = createHttpServer((req, res: ServerResponse) => {
      const write = res.write.bind(res) as (b: Uint8Array) => boolean;
      (res as unknown as { write: unknown }).write = (
        b: Uint8Array,
        cb?: (e?: Error | null) => void,
      ) => {
        const later = b;
        setImmediate(() => write(later));
        cb?.();
        return true;
      };
      const end = res.end.bind(res);
      (res as unknown as { end: unknown }).end = () => {
        setImmediate(() => setImmediate(() => end()));
        return res;
      };
      handler.node(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const a = server.address();
    url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await s.transit.close();
    };
  });
  afterAll(() => close());

  it('recycles nothing, so the envelope is intact', async () => {
    const plain = bytes(8 * MiB + 77);
    const e = await streamPost(url, '/v1/transit/encrypt-stream/k', plain, { token: root });
    expect(e.status).toBe(200);
    const d = await streamPost(url, '/v1/transit/decrypt-stream/k', e.body, { token: root });
    expect(d.status).toBe(200);
    expect(d.complete).toBe(true);
    expect(sha256(d.body)).toBe(sha256(plain));
  });
});

describe('writesThrough: which Node responses report a written piece truthfully', () => {
  /** `check` runs on the response of one GET to a plain node:http server. */
  async function onResponse(check: (res: ServerResponse) => boolean): Promise<boolean> {
    let seen = false;
    const server = createHttpServer((_req, res) => {
      seen = check(res);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const a = server.address();
    const port = typeof a === 'object' && a ? a.port : 0;
    await new Promise<void>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/' }, (res) => {
        res.resume();
        res.on('end', resolve);
      })
        .on('error', reject)
        .end();
    });
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    return seen;
  }

  it('a node:http response on its socket: yes', async () => {
    expect(await onResponse((res) => writesThrough(res))).toBe(true);
  });

  it('a response whose write is wrapped, or whose socket writes elsewhere: no', async () => {
    expect(
      await onResponse((res) => {
        const write = res.write.bind(res);
        (res as unknown as { write: unknown }).write = write;
        return writesThrough(res);
      }),
    ).toBe(false);
    expect(
      await onResponse((res) => {
        const socket = res.socket as unknown as { _write: unknown };
        socket._write = (_c: unknown, _e: unknown, cb: () => void) => cb();
        const answer = writesThrough(res);
        delete (socket as { _write?: unknown })._write;
        return answer;
      }),
    ).toBe(false);
  });

  it('a connection that is a stream rather than a socket: no', async () => {
    let seen: boolean | undefined;
    const server = createHttpServer((_req, res) => {
      seen = writesThrough(res);
      res.end();
    });
    const conn = new Duplex({
      read() {},
      write(_c, _e, cb) {
        cb();
      },
    });
    server.emit('connection', conn);
    conn.push('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let i = 0; i < 50 && seen === undefined; i++) await new Promise((r) => setTimeout(r, 5));
    expect(seen).toBe(false);
    conn.destroy();
    server.close();
  });
});
