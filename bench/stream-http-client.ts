/**
 * The client side of `bench/stream-http.bench.ts`: the bytes it sends (a
 * random 4 MiB block, repeated, in 64 KiB writes with backpressure), a
 * stream through one server path, the encrypt → decrypt pipeline through
 * transitkit's server, and the check of every server's output before
 * anything is timed.
 * @module
 */
import { createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { type IncomingMessage, request } from 'node:http';
import type { Ports } from './stream-http-server.js';

export const MiB = 1024 * 1024;
const BLOCK = randomBytes(4 * MiB);
const CHUNK = 64 * 1024;

/**
 * Write `total` bytes (the block, repeated) to `req` with backpressure, or
 * pipe `from` into it.
 */
function feed(req: ReturnType<typeof request>, total: number): void {
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const n = Math.min(CHUNK, total - sent);
      const off = sent % BLOCK.length;
      const piece = BLOCK.subarray(off, Math.min(off + n, BLOCK.length));
      sent += piece.length;
      if (!req.write(piece)) return;
    }
    req.end();
  };
  req.on('drain', pump);
  pump();
}

/** POST to the server; the response is handed to `onResponse`. */
function post(
  port: number,
  path: string,
  token: string,
  onResponse: (res: IncomingMessage) => void,
  onError: (e: Error) => void,
) {
  const req = request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'x-vault-token': token },
  });
  req.on('response', onResponse);
  req.on('error', onError);
  return req;
}

/** Stream `total` bytes through `path`; resolves with MiB/s and the bytes that came back. */
export function through(
  port: number,
  path: string,
  token: string,
  total: number,
  keep = false,
): Promise<{ mibps: number; out: Buffer[]; outBytes: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const out: Buffer[] = [];
    let outBytes = 0;
    const req = post(
      port,
      path,
      token,
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`${path}: status ${res.statusCode}`));
        res.on('data', (c: Buffer) => {
          outBytes += c.length;
          if (keep) out.push(c);
        });
        res.on('end', () => {
          if (!res.complete) reject(new Error(`${path}: response cut`));
          const s = (performance.now() - started) / 1000;
          resolve({ mibps: total / MiB / s, out, outBytes });
        });
        res.on('error', reject);
      },
      reject,
    );
    feed(req, total);
  });
}

/** Both directions at once: bytes → encrypt-stream → decrypt-stream → SHA-256 of the result. */
export function pipeline(p: Ports, total: number): Promise<{ digest: string; mibps: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const hash = createHash('sha256');
    const dec = post(
      p.kit,
      '/v1/transit/decrypt-stream/bench',
      p.token,
      (res) => {
        res.on('data', (c: Buffer) => hash.update(c));
        res.on('end', () =>
          res.complete
            ? resolve({
                digest: hash.digest('hex'),
                mibps: total / MiB / ((performance.now() - started) / 1000),
              })
            : reject(new Error('decrypt-stream cut')),
        );
        res.on('error', reject);
      },
      reject,
    );
    const enc = post(
      p.kit,
      '/v1/transit/encrypt-stream/bench',
      p.token,
      (res) => {
        res.on('error', reject);
        res.pipe(dec);
      },
      reject,
    );
    feed(enc, total);
  });
}

/** SHA-256 of `total` bytes of the repeated block (what `feed` sends). */
export function expectedDigest(total: number): string {
  const h = createHash('sha256');
  for (let sent = 0; sent < total; ) {
    const off = sent % BLOCK.length;
    const piece = BLOCK.subarray(off, Math.min(off + Math.min(CHUNK, total - sent), BLOCK.length));
    h.update(piece);
    sent += piece.length;
  }
  return h.digest('hex');
}

/** Before timing: each server's output opens to the input. */
export async function check(p: Ports, key: Buffer): Promise<void> {
  const n = 3 * MiB + 7;
  const bare = await through(p.bare, '/', '', n, true);
  const raw = Buffer.concat(bare.out);
  const d = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  d.setAuthTag(raw.subarray(raw.length - 16));
  const back = Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]);
  if (createHash('sha256').update(back).digest('hex') !== expectedDigest(n)) {
    throw new Error('bare server: wrong output');
  }
  const chunks = Buffer.concat((await through(p.chunked, '/', '', n, true)).out);
  const opened: Buffer[] = [];
  const nonce = Buffer.alloc(12);
  for (let off = 0, i = 0; off < chunks.length; off += 16 * 1024 + 16, i++) {
    const end = Math.min(off + 16 * 1024 + 16, chunks.length);
    nonce.writeUInt32BE(i, 8);
    const c = createDecipheriv('aes-256-gcm', key, nonce);
    c.setAuthTag(chunks.subarray(end - 16, end));
    opened.push(c.update(chunks.subarray(off, end - 16)), c.final());
  }
  const digest = createHash('sha256').update(Buffer.concat(opened)).digest('hex');
  if (digest !== expectedDigest(n)) throw new Error('bare chunked server: wrong output');
  const kit = await pipeline(p, n);
  if (kit.digest !== expectedDigest(n)) throw new Error('transitkit: round trip differs');
}
