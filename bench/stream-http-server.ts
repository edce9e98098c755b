/**
 * The server side of `bench/stream-http.bench.ts`, run in a child process
 * (`fork`ed with the AES key, base64, as its argument): the bare baseline,
 * the bare chunked server, transitkit's `createServer` and `handler.node` on
 * a plain `node:http` server, each on a free port. It answers the bench's
 * questions over IPC: `rss` (now, and restart the peak), `peak` (the RSS
 * peak since, sampled every 20 ms), `cpu` (this process's CPU time, µs);
 * anything else ends it.
 * @module
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { MemoryStorage, Transit } from 'transitkit';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';
import { createServer as createListServer } from 'transitkit/http/node';
import { listen } from './http-client.js';

/** Where the servers listen, and a root token for transitkit's. */
export interface Ports {
  bare: number;
  /** The bare server sealing in 16 KiB chunks, a fresh GCM context each. */
  chunked: number;
  /** `transitkit/http/node` createServer (LIST-capable socket). */
  kit: number;
  /** `handler.node` on a plain `node:http` server. */
  node: number;
  token: string;
}

/** The baseline: request body → AES-256-GCM → response (nonce first, tag last). */
function bareServer(key: Buffer): Server {
  return createServer((req, res) => {
    const nonce = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, nonce);
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(nonce);
    req.on('data', (chunk: Buffer) => {
      if (!res.write(c.update(chunk))) {
        req.pause();
        res.once('drain', () => req.resume());
      }
    });
    req.on('end', () => {
      res.write(c.final());
      res.end(c.getAuthTag());
    });
  });
}

/**
 * The least a chunked AEAD format can do over the same server: the body sealed
 * in 16 KiB chunks, each with a fresh AES-256-GCM context and nonce (what
 * Cobblestone, Tink's and AWS's streaming formats need so that every chunk
 * authenticates on its own), each chunk's ciphertext and tag written as they
 * come (no framing, no key handling, no copy but the carry of a partial
 * chunk). Measured beside the one-context baseline to show what the chunking
 * itself costs there.
 */
function bareChunkedServer(key: Buffer): Server {
  const CALL = 16 * 1024;
  return createServer((req, res) => {
    const nonce = Buffer.alloc(12);
    let index = 0;
    const carry = Buffer.allocUnsafe(CALL);
    let held = 0;
    const seal = (bytes: Buffer) => {
      nonce.writeUInt32BE(index++, 8);
      const c = createCipheriv('aes-256-gcm', key, nonce);
      const body = c.update(bytes);
      c.final();
      res.write(body);
      return res.write(c.getAuthTag());
    };
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    req.on('data', (chunk: Buffer) => {
      let ok = true;
      res.cork();
      let off = 0;
      if (held > 0) {
        off = chunk.copy(carry, held, 0, CALL - held);
        held += off;
        if (held < CALL) return res.uncork();
        ok = seal(carry);
        held = 0;
      }
      for (; off + CALL <= chunk.length; off += CALL) ok = seal(chunk.subarray(off, off + CALL));
      held = chunk.copy(carry, 0, off);
      res.uncork();
      if (!ok) {
        req.pause();
        res.once('drain', () => req.resume());
      }
    });
    req.on('end', () => {
      seal(carry.subarray(0, held));
      res.end();
    });
  });
}

/** Server side (the child process). */
async function serve(key: Buffer): Promise<void> {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const token = await tokens.createRoot();
  const transit = new Transit({ storage, autoRotate: false });
  await transit.createKey('bench');
  const handler = createHandler({ transit, tokens, policies: new AclPolicyStore({ storage }) });
  const ports = {
    bare: await listen(bareServer(key)),
    chunked: await listen(bareChunkedServer(key)),
    kit: (await createListServer(handler).listen(0)).port,
    node: await listen(createServer(handler.node)),
  };
  let peak = 0;
  setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20).unref();
  process.on('message', (m) => {
    if (m === 'rss') {
      peak = process.memoryUsage.rss();
      process.send?.({ rss: peak });
    } else if (m === 'peak') process.send?.({ peak: Math.max(peak, process.memoryUsage.rss()) });
    else if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
    } else process.exit(0);
  });
  // The bench is gone (a failure elsewhere): so is this server.
  process.on('disconnect', () => process.exit(0));
  process.send?.({ ...ports, token } satisfies Ports);
}

await serve(Buffer.from(process.argv[2] ?? '', 'base64'));
