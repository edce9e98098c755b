/**
 * Two instances on one storage (each its own engine, token store, policy
 * store and server, as two app processes on one Redis would be): an
 * envelope streamed through one decrypts through the other, and what one
 * instance revokes stops a stream running on the other at its next
 * re-check. A second instance grants nothing the shared storage does not.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { createServer } from '../../adapters/http/node-server.js';
import { STREAM_RECHECK_MS } from '../../adapters/http/stream-reply.js';
import { MemoryStorage, Transit } from '../../src/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { bytes, generated, sha256, streamPost } from './stream-support.js';

const MiB = 1024 * 1024;

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function instance(storage: MemoryStorage, clock: FakeClock) {
  const transit = new Transit({ storage, autoRotate: false, clock });
  const tokens = new TokenStore({ storage, clock });
  const policies = new AclPolicyStore({ storage });
  const handler = createHandler(
    { transit, tokens, policies },
    { clock, logger: { error: () => {} } },
  );
  const server = createServer(handler);
  const { url } = await server.listen(0);
  cleanup.push(async () => {
    await server.close({ drainMs: 0 });
    await transit.close();
  });
  return { transit, tokens, policies, url };
}

describe('two instances on one storage', () => {
  it('stream on one, decrypt on the other; a token revoked on B stops a stream on A', async () => {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const a = await instance(storage, clock);
    const b = await instance(storage, clock);
    await a.transit.createKey('k');
    const rootToken = await a.tokens.createRoot();
    await b.policies.write(
      's',
      'path "transit/encrypt-stream/k" { capabilities = ["update"] }\n' +
        'path "transit/decrypt-stream/k" { capabilities = ["update"] }',
    );
    const root = await b.tokens.authenticate(rootToken);
    if (!root) throw new Error('no root');
    const t = (await b.tokens.create(root, { policies: ['s'] })).client_token;

    const plain = bytes(5 * MiB + 3);
    const e = await streamPost(a.url, '/v1/transit/encrypt-stream/k', plain, { token: t });
    expect(e.status).toBe(200);
    const d = await streamPost(b.url, '/v1/transit/decrypt-stream/k', e.body, { token: t });
    expect(d.status).toBe(200);
    expect(sha256(d.body)).toBe(sha256(plain));

    // A long stream on A; B revokes the token part way; A's next re-check ends it.
    const g = generated(64 * MiB, MiB);
    let fed = 0;
    async function* slow() {
      for (const c of g.chunks()) {
        fed += c.length;
        if (fed === 8 * MiB) {
          await b.tokens.revoke(t);
          clock.advance(STREAM_RECHECK_MS + 1);
        }
        yield c;
      }
    }
    const cut = await streamPost(a.url, '/v1/transit/encrypt-stream/k', slow(), { token: t });
    expect(cut.status).toBe(200);
    expect(cut.complete).toBe(false);
    expect(cut.body.length).toBeLessThan(64 * MiB);
    // And the revoked token is refused outright on both.
    for (const url of [a.url, b.url]) {
      const r = await streamPost(url, '/v1/transit/encrypt-stream/k', plain, { token: t });
      expect(r.status).toBe(403);
    }
  });
});
