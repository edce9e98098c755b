/**
 * The streaming rows refuse HTTP/1.0. A reply to an HTTP/1.0 request has no
 * chunked framing (the body ends where the connection closes), so a stream
 * failing after its 200 — a tampered chunk, a truncated envelope, a revoked
 * token — would end exactly as a complete reply ends, and the client would
 * keep a cut plaintext (or envelope) as whole. So the request is refused
 * with a 400 before the 200, through every Node binding; HTTP/1.1 (chunked)
 * is served, and its failures still end without the chunked terminator.
 * Over raw sockets, so the request line's version is the test's own.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Binding, bytes, served } from './stream-support.js';

const NODE_BINDINGS: Binding[] = ['node', 'node-server', 'express', 'koa'];

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** Send one request on a fresh connection; everything the server sent until it closed. */
function exchange(url: string, head: string, body: Uint8Array): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(Buffer.from(head, 'latin1'));
      socket.end(body);
    });
    const parts: Buffer[] = [];
    socket.on('data', (b: Buffer) => parts.push(b));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(parts).toString('latin1')));
  });
}

const request = (version: string, path: string, token: string, length: number) =>
  `POST ${path} HTTP/${version}\r\nHost: x\r\nX-Vault-Token: ${token}\r\n` +
  `Content-Type: application/octet-stream\r\nContent-Length: ${length}\r\n` +
  `${version === '1.1' ? 'Connection: close\r\n' : ''}\r\n`;

async function setUp(binding: Binding) {
  const s = await served(binding);
  cleanup.push(() => s.close());
  const prefix = new URL(s.url).pathname.replace(/\/$/, '');
  const plain = new Uint8Array(bytes(100 * 1024 + 7));
  const sealed = new Uint8Array(
    await new Response(
      new Blob([plain]).stream().pipeThrough(s.transit.encryptStream('k')),
    ).arrayBuffer(),
  );
  const tampered = sealed.slice();
  tampered[tampered.length - 5] = (tampered[tampered.length - 5] as number) ^ 1; // the final tag
  return { s, prefix, plain, sealed, tampered };
}

describe.each(NODE_BINDINGS)('HTTP/1.0 on the streaming rows (%s)', (binding) => {
  it('decrypt-stream and encrypt-stream answer 400 before any 200', async () => {
    const { s, prefix, tampered, plain } = await setUp(binding);
    for (const [path, body] of [
      [`${prefix}/v1/transit/decrypt-stream/k`, tampered],
      [`${prefix}/v1/transit/encrypt-stream/k`, plain],
    ] as const) {
      const raw = await exchange(s.url, request('1.0', path, s.root, body.length), body);
      expect(raw, path).toMatch(/^HTTP\/1\.[01] 400 /);
      expect(raw).not.toContain(' 200 ');
      expect(raw).toContain('streaming needs HTTP/1.1');
      expect(raw).toMatch(/\{"errors":\["streaming needs HTTP\/1\.1[^"]*"\]\}/);
    }
  });

  it('HTTP/1.1 is served: a good envelope decrypts, a tampered one ends without the terminator', async () => {
    const { s, prefix, sealed, tampered, plain } = await setUp(binding);
    const path = `${prefix}/v1/transit/decrypt-stream/k`;
    const good = await exchange(s.url, request('1.1', path, s.root, sealed.length), sealed);
    expect(good).toMatch(/^HTTP\/1\.1 200 /);
    expect(good).toMatch(/transfer-encoding: chunked/i);
    expect(good.endsWith('\r\n0\r\n\r\n')).toBe(true);
    expect(good.length).toBeGreaterThan(plain.length);
    const bad = await exchange(s.url, request('1.1', path, s.root, tampered.length), tampered);
    expect(bad).toMatch(/^HTTP\/1\.1 200 /);
    expect(bad.endsWith('\r\n0\r\n\r\n'), 'an aborted reply never ends cleanly').toBe(false);
  });
});
