/**
 * Issue #15 item 8: a token with no capability on any completion of a
 * body-completed ACL path (hash, hmac, sign, verify, restore) is refused
 * before the body is read, and JSON bodies have bounded nesting and list
 * sizes. Over the real CLI server:
 *
 * - a 403 arrives while most of a declared 32 MiB body is still unsent
 *   (deterministic: the old server waited for the whole body);
 * - a full 32 MiB post by a `default` token is answered within the issue's
 *   bound (100 ms target; asserted with slack for a loaded 2-core machine),
 *   and `sys/health` answers meanwhile; the figures and the server's peak
 *   RSS are printed;
 * - a token allowed on one completion only still gets exactly that one;
 * - deep nesting and huge lists are 400 before anything is built from them.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { b64, type CliServer, call, startDev } from './helpers.js';

let server: CliServer;
let dflt: string;
let sha256Only: string;
const as = (token: string) => ({ url: server.url, root: token });

const ONLY_SHA256 = `
path "transit/hash/sha2-256" { capabilities = ["update"] }
path "transit/hmac/k/sha2-256" { capabilities = ["update"] }
`;

beforeAll(async () => {
  server = await startDev();
  expect((await call(server, 'POST', '/v1/transit/keys/k', { body: {} })).status).toBe(200);
  const p = await call(server, 'PUT', '/v1/sys/policy/sha256', { body: { policy: ONLY_SHA256 } });
  expect(p.status).toBe(204);
  const mk = async (policies: string) => {
    const r = await call(server, 'POST', '/v1/auth/token/create', { body: { policies } });
    expect(r.status).toBe(200);
    return r.json.auth.client_token as string;
  };
  dflt = await mk('default');
  sha256Only = await mk('sha256');
}, 30_000);
afterAll(async () => {
  await server.stop();
});

/**
 * Send headers declaring `declared` body bytes and only `sent` of them; resolve
 * with the status line of the first response and the ms it took, or `undefined`
 * when nothing arrives within `ms`.
 */
function partialPost(
  path: string,
  token: string,
  declared: number,
  sent: number,
  ms = 3000,
): Promise<{ status: string; ms: number } | undefined> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const start = performance.now();
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${token}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      socket.write(`{"input":"${'A'.repeat(Math.max(0, sent - 11))}`);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, ms);
    socket.once('data', (d: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: d.toString('latin1').split('\r\n')[0] ?? '',
        ms: performance.now() - start,
      });
    });
    socket.on('error', () => undefined);
  });
}

const MiB32 = 32 * 1024 * 1024;

describe('refused before the body is read', () => {
  it('a default token gets its 403 while most of a 32 MiB body is unsent', async () => {
    for (const path of [
      '/v1/transit/hash',
      '/v1/transit/hmac/k',
      '/v1/transit/sign/k',
      '/v1/transit/verify/k',
      '/v1/transit/restore',
    ]) {
      const r = await partialPost(path, dflt, MiB32, 64 * 1024);
      expect(r?.status, path).toBe('HTTP/1.1 403 Forbidden');
      console.log(`${path}: 403 after ${r?.ms.toFixed(1)} ms with 64 KiB of 32 MiB sent`);
    }
  });

  it('a token allowed on some completion waits for the body (then gets exactly that)', async () => {
    // Not refused early: the body may name sha2-256.
    expect(await partialPost('/v1/transit/hash', sha256Only, MiB32, 1024, 500)).toBeUndefined();
    const t = as(sha256Only);
    const input = b64('abc');
    const ok = await call(t, 'POST', '/v1/transit/hash', {
      body: { input, algorithm: 'sha2-256' },
    });
    expect(ok.status, ok.text).toBe(200);
    for (const body of [{ input, algorithm: 'sha2-512' }, { input }]) {
      expect((await call(t, 'POST', '/v1/transit/hash', { body })).status).toBe(403);
    }
    expect((await call(t, 'POST', '/v1/transit/hash/sha2-256', { body: { input } })).status).toBe(
      200,
    );
    expect((await call(t, 'POST', '/v1/transit/hash/sha2-512', { body: { input } })).status).toBe(
      403,
    );
    const hmac = await call(t, 'POST', '/v1/transit/hmac/k', {
      body: { input, algorithm: 'sha2-256' },
    });
    expect(hmac.status, hmac.text).toBe(200);
    expect((await call(t, 'POST', '/v1/transit/hmac/other', { body: { input } })).status).toBe(403);
  });

  it('a body value cannot smuggle extra path segments into the ACL path', async () => {
    const t = as(sha256Only);
    const body = { input: b64('abc'), algorithm: 'sha2-256/../sha2-512' };
    const r = await call(t, 'POST', '/v1/transit/hash', { body });
    expect(r.status, r.text).toBe(400);
  });

  it('a full 32 MiB post by a default token: fast 403, health unaffected (measured)', async () => {
    // Many small items: what costs a JSON parser time and memory (a 32 MiB string would not).
    const n = Math.floor((MiB32 - 100) / 3);
    const body = `{"batch_input":[${'{},'.repeat(n)}{}]}`;
    const baseline = performance.now();
    expect((await call(server, 'GET', '/v1/sys/health', { token: null })).status).toBe(200);
    const healthIdle = performance.now() - baseline;
    const start = performance.now();
    const post = call(as(dflt), 'POST', '/v1/transit/hash', { body }).then(
      (r) => ({ status: r.status, ms: performance.now() - start }),
      (e: unknown) => {
        console.log(`post failed (${String(e)}); server exit ${server.proc.exitCode}`);
        return { status: 0, ms: performance.now() - start };
      },
    );
    // Poll health until the post is answered; the slowest answer is what a stall would show.
    let done = false;
    void post.then(() => {
      done = true;
    });
    let healthMs = 0;
    let polls = 0;
    let health = { status: 0 };
    do {
      const h0 = performance.now();
      health = await call(server, 'GET', '/v1/sys/health', { token: null }).catch(() => ({
        status: 0,
      }));
      healthMs = Math.max(healthMs, performance.now() - h0);
      polls++;
      if (health.status !== 200) break;
      await new Promise((r) => setTimeout(r, 5));
    } while (!done);
    const denied = await post;
    const rss = /VmHWM:\s+(\d+) kB/.exec(
      readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'),
    )?.[1];
    console.log(
      `32 MiB post by a default token: ${denied.status} in ${denied.ms.toFixed(1)} ms; ` +
        `sys/health meanwhile at most ${healthMs.toFixed(1)} ms over ${polls} polls (idle ${healthIdle.toFixed(1)} ms); ` +
        `server peak RSS ${rss ? Math.round(Number(rss) / 1024) : '?'} MB`,
    );
    expect(denied.status).toBe(403);
    expect(health.status).toBe(200);
    // The target is 100 ms; 1 s leaves slack for a loaded 2-core machine (old: ~5 s).
    expect(denied.ms).toBeLessThan(1000);
    expect(healthMs).toBeLessThan(1000);
  }, 30_000);
});

describe('bounded JSON', () => {
  const hash = (body: string) => call(server, 'POST', '/v1/transit/hash', { body });

  it('refuses nesting deeper than the limit (400), in any field', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const r = await hash(`{"input":"${b64('a')}","x":${deep}}`);
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.json.errors[0]).toMatch(/nest/);
    const obj = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    expect((await hash(`{"input":"${b64('a')}","x":${obj}}`)).status).toBe(400);
  });

  it('refuses a list longer than the limit (400)', async () => {
    const long = `[${Array(200_000).fill('0').join(',')}]`;
    const r = await hash(`{"input":"${b64('a')}","x":${long}}`);
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    expect(r.json.errors[0]).toMatch(/list|array/);
  });

  it('ordinary nesting, batches and brackets inside strings still parse', async () => {
    const items = Array.from({ length: 1000 }, () => ({ plaintext: b64('x') }));
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', { body: { batch_input: items } });
    expect(r.status, r.text.slice(0, 200)).toBe(200);
    const tricky = await hash(`{"input":"${b64('a')}","x":"[[[[\\"{{{{","y":[[[{"z":[1,2]}]]]}`);
    expect(tricky.status, tricky.text).toBe(200);
  });
});
