/**
 * A running stream is re-checked every STREAM_RECHECK_MS on the handler's
 * clock (a fake one here): revoking its token, or narrowing its policy,
 * or sealing the node, aborts the response after the 200; a stream with nothing changed runs
 * through many re-checks to a clean end; a limited-use token spent by the
 * stream itself does not cut it; a token another instance revoked a moment
 * before the stream, still in this instance's token cache, is refused before
 * the first byte. Over a real socket (`transitkit/http/node`).
 */
import { type IncomingMessage, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { createServer } from '../../adapters/http/node-server.js';
import { STREAM_RECHECK_MS } from '../../adapters/http/stream-reply.js';
import {
  AclPolicyStore,
  MemoryStorage,
  TokenStore,
  Transit,
  TransitNode,
} from '../../src/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';
import { streamServices } from './stream-support.js';

const MiB = 1024 * 1024;
const ENC = '/v1/transit/encrypt-stream/k';
const POLICY = 'path "transit/encrypt-stream/*" { capabilities = ["update"] }';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function setup() {
  const s = await streamServices();
  const clock = new FakeClock();
  const handler = createHandler(s.services, { clock, logger: { error: () => {} } });
  const server = createServer(handler);
  const { url } = await server.listen(0);
  cleanup.push(async () => {
    await server.close({ drainMs: 0 });
    await s.transit.close();
  });
  await s.policies.write('streamer', POLICY);
  const root = await s.tokens.authenticate(s.root);
  if (!root) throw new Error('no root');
  const token = async (extra: Record<string, unknown> = {}) =>
    (await s.tokens.create(root, { policies: ['streamer'], ...extra })).client_token;
  return { ...s, clock, url, token };
}

/**
 * A stream the test drives: `send(n)` uploads n MiB and waits until the
 * server answered at least that much; `end()` finishes the upload and
 * resolves with how the response ended.
 */
async function open(url: string, token: string) {
  const req = request(url + ENC, {
    method: 'POST',
    headers: { 'x-vault-token': token, 'content-type': 'application/octet-stream' },
  });
  req.on('error', () => {});
  let received = 0;
  let ended: 'clean' | 'aborted' | undefined;
  const res = new Promise<IncomingMessage>((resolve) => req.on('response', resolve));
  req.flushHeaders();
  const block = new Uint8Array(MiB).fill(9);
  let sent = 0;
  const r = await new Promise<IncomingMessage>((resolve) => {
    req.write(block);
    sent += MiB;
    res.then(resolve);
  });
  expect(r.statusCode).toBe(200);
  r.on('data', (c: Buffer) => {
    received += c.length;
  });
  r.on('end', () => {
    ended = r.complete ? 'clean' : 'aborted';
  });
  r.on('error', () => {
    ended = 'aborted';
  });
  r.on('close', () => {
    ended ??= r.complete ? 'clean' : 'aborted';
  });
  const settle = async (cond: () => boolean) => {
    const until = Date.now() + 5000;
    while (!cond() && Date.now() < until) await new Promise((x) => setTimeout(x, 10));
  };
  return {
    async send(mib: number) {
      for (let i = 0; i < mib; i++) {
        if (ended) return;
        if (!req.write(block)) {
          // Until the socket drains, or is gone (the server aborted).
          await new Promise((x) => {
            req.once('drain', x);
            req.once('close', x);
          });
        }
        sent += MiB;
      }
      await settle(() => ended !== undefined || received >= sent - 2 * MiB);
    },
    async end() {
      if (!ended) req.end();
      await settle(() => ended !== undefined);
      return ended;
    },
    state: () => ended,
  };
}

describe('re-checks of a running stream', () => {
  it('nothing changed: many re-checks, a clean end', async () => {
    const s = await setup();
    const st = await open(s.url, await s.token());
    for (let i = 0; i < 4; i++) {
      s.clock.advance(STREAM_RECHECK_MS + 1);
      await st.send(2);
    }
    expect(await st.end()).toBe('clean');
  });

  it('a revoked token aborts the response at the next re-check', async () => {
    const s = await setup();
    const t = await s.token();
    const st = await open(s.url, t);
    await st.send(2);
    await s.tokens.revoke(t);
    await st.send(2);
    expect(st.state(), 'not before the re-check is due').toBeUndefined();
    s.clock.advance(STREAM_RECHECK_MS + 1);
    await st.send(4);
    expect(await st.end()).toBe('aborted');
  });

  it('a narrowed policy aborts the response', async () => {
    const s = await setup();
    const st = await open(s.url, await s.token());
    await st.send(2);
    await s.policies.write('streamer', 'path "transit/encrypt/*" { capabilities = ["update"] }');
    s.clock.advance(STREAM_RECHECK_MS + 1);
    await st.send(4);
    expect(await st.end()).toBe('aborted');
  });

  it('sealing the node aborts the response', async () => {
    const clock = new FakeClock();
    const rootKey = new Uint8Array(32).fill(3);
    const node = new TransitNode({ storage: new MemoryStorage(), rootKey, clock });
    const root = (await node.start()).root_token as string;
    await node.services().transit.createKey('k');
    const server = createServer(createHandler(node, { clock, logger: { error: () => {} } }));
    const { url } = await server.listen(0);
    cleanup.push(async () => {
      await server.close({ drainMs: 0 });
      await node.close();
    });
    const st = await open(url, root);
    await st.send(2);
    await node.seal();
    clock.advance(STREAM_RECHECK_MS + 1);
    await st.send(4);
    expect(await st.end()).toBe('aborted');
  });

  it('a one-use token spent by the stream itself keeps streaming', async () => {
    const s = await setup();
    const st = await open(s.url, await s.token({ num_uses: 1 }));
    await st.send(2);
    s.clock.advance(STREAM_RECHECK_MS + 1);
    await st.send(2);
    expect(await st.end()).toBe('clean');
  });

  it('a token revoked on another instance just before, still cached here, gets a 403 before any byte', async () => {
    const shared = new MemoryStorage();
    // Instance A: where the operator revokes.
    const tokensA = new TokenStore({ storage: shared });
    await new AclPolicyStore({ storage: shared }).write('streamer', POLICY);
    const rootA = await tokensA.authenticate(await tokensA.createRoot());
    if (!rootA) throw new Error('no root');
    const t = (await tokensA.create(rootA, { policies: ['streamer'] })).client_token;
    const transitA = new Transit({ storage: shared, autoRotate: false });
    await transitA.createKey('k');
    // Instance B serves the stream; its change notifications are lost (a
    // dropped pub/sub message), so its token cache keeps `t` for up to 1 s.
    const view = new LostNotifications(shared);
    const tokensB = new TokenStore({ storage: view });
    const transitB = new Transit({ storage: view, autoRotate: false });
    const services = {
      transit: transitB,
      tokens: tokensB,
      policies: new AclPolicyStore({ storage: view }),
    };
    const server = createServer(createHandler(services, { logger: { error: () => {} } }));
    const { url } = await server.listen(0);
    cleanup.push(async () => {
      await server.close({ drainMs: 0 });
      await transitA.close();
      await transitB.close();
    });
    await new Promise((r) => setTimeout(r, 20)); // B's watch is live: entries are cached
    expect(await tokensB.authenticate(t)).toBeDefined();
    await tokensA.revoke(t);
    expect(await tokensB.authenticate(t), 'B still serves it from its cache').toBeDefined();
    const r = await fetch(url + ENC, {
      method: 'POST',
      headers: { 'x-vault-token': t, 'content-type': 'application/octet-stream' },
      body: new Uint8Array(MiB).fill(9),
    });
    expect(r.status).toBe(403);
    expect(await r.json()).toEqual({ errors: ['permission denied'] });
  });
});

/** A view of a storage whose watch subscribes but never reports a change. */
class LostNotifications extends StorageView {
  override async watch(_prefix: string, _onChange: (key: string) => void) {
    return async () => {};
  }
}
