/**
 * Issue #15 item 10: an `internal` error is answered with a generic
 * `{"errors":["internal error","request id: <id>"]}` (and the id in an
 * `X-Request-Id` header); the detail — barrier messages, entry paths, the
 * storage directory — goes only to the server log, under the same id.
 *
 * End to end over the CLI server on file storage: a key's stored entry is
 * tampered with between two starts, so the barrier fails to authenticate it.
 * In process: a storage whose reads fail with an `internal` TransitError, and
 * the handler's logger.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { TransitError } from '../../src/errors.js';
import { Transit } from '../../src/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { runBatch } from '../../src/transit/batch.js';
import { pythonWithHvac, SKIP_HVAC } from '../helpers/tools.js';
import { call, startCli } from './helpers.js';

const HVAC_READ = `
import sys, hvac
c = hvac.Client(url=sys.argv[1], token=sys.argv[2])
try:
    c.secrets.transit.read_key('c1')
    print('no error')
except hvac.exceptions.VaultError as e:
    print(type(e).__name__, e.errors)
`;

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The body and header of a generic 500, and its request id. */
function expectGeneric(status: number, text: string, header: string | null): string {
  expect(status).toBe(500);
  const body = JSON.parse(text) as { errors: string[] };
  expect(body.errors).toHaveLength(2);
  expect(body.errors[0]).toBe('internal error');
  const id = /^request id: (.+)$/.exec(body.errors[1] ?? '')?.[1] ?? '';
  expect(id).toMatch(ID);
  expect(header).toBe(id);
  return id;
}

describe('a barrier failure over the CLI server', () => {
  it('answers a generic 500 with a request id; the detail is only in the server log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tk-internal-'));
    const keyFile = join(dir, 'root.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const store = join(dir, 'store');
    const args = ['--storage', `file:${store}`, '--root-key-file', keyFile];
    const listen = ['--listen', '127.0.0.1:0', '--initial-root-token', 'root-t'];
    const first = await startCli([...args, ...listen]);
    try {
      expect((await call(first, 'POST', '/v1/transit/keys/c1', { body: {} })).status).toBe(200);
    } finally {
      await first.stop();
    }
    // Flip a byte in the middle of every stored entry that names c1.
    const files = readdirSync(store).filter((f) => f.includes('c1'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const bytes = readFileSync(join(store, f));
      const at = Math.floor(bytes.length / 2);
      bytes[at] = (bytes[at] as number) ^ 0x01;
      writeFileSync(join(store, f), bytes);
    }
    const second = await startCli([...args, '--listen', '127.0.0.1:0']);
    try {
      const s = { url: second.url, root: 'root-t' };
      const r = await call(s, 'GET', '/v1/transit/keys/c1');
      console.log(`tampered read: ${r.status} ${r.text}`);
      const id = expectGeneric(r.status, r.text, r.headers.get('x-request-id'));
      for (const leak of ['barrier', 'transit/', 'authentication', store, dir]) {
        expect(r.text).not.toContain(leak);
      }
      // The server's log has the detail, under the same request id.
      await new Promise((res) => setTimeout(res, 100));
      const log = second.stderr();
      expect(log).toContain(id);
      expect(log).toMatch(/failed authentication/);
      // hvac raises its InternalServerError with both lines (a Vault client sees the id).
      if (!SKIP_HVAC) {
        const out = execFileSync(pythonWithHvac(), ['-c', HVAC_READ, second.url, 'root-t'], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        console.log(`hvac: ${out.trim()}`);
        expect(out).toMatch(
          /^InternalServerError \['internal error', 'request id: [0-9a-f-]{36}'\]/,
        );
      }
      // Encrypt with it: the same generic answer.
      const enc = await call(s, 'POST', '/v1/transit/encrypt/c1', { body: { plaintext: 'aGk=' } });
      expectGeneric(enc.status, enc.text, enc.headers.get('x-request-id'));
      expect(enc.text).not.toContain('barrier');
    } finally {
      await second.stop();
    }
  }, 60_000);
});

describe('in process', () => {
  it('any internal TransitError: generic body, detail to the handler logger', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const failing = new MemoryStorage();
    const detail = 'barrier: the entry at transit/policy/k failed authentication in /var/lib/tk';
    failing.get = async () => {
      throw new TransitError('internal', detail);
    };
    const logged: string[] = [];
    const handler = createHandler(
      {
        transit: new Transit({ storage: failing }),
        tokens,
        policies: new AclPolicyStore({ storage }),
      },
      {
        logger: {
          error: (message, error) =>
            logged.push(`${message} ${error instanceof Error ? error.message : ''}`),
        },
      },
    );
    const r = await handler.fetch(
      new Request('http://x/v1/transit/keys/k', { headers: { 'x-vault-token': root } }),
    );
    const text = await r.text();
    const id = expectGeneric(r.status, text, r.headers.get('x-request-id'));
    expect(text).not.toContain('barrier');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(id);
    expect(logged[0]).toContain(detail);
  });

  it('a non-TransitError failure gets the same answer', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const failing = new MemoryStorage();
    failing.get = async () => {
      throw new Error('EACCES: /srv/secret/dir');
    };
    const logged: unknown[] = [];
    const handler = createHandler(
      {
        transit: new Transit({ storage: failing }),
        tokens,
        policies: new AclPolicyStore({ storage }),
      },
      { logger: { error: (m, e) => logged.push([m, e]) } },
    );
    const r = await handler.fetch(
      new Request('http://x/v1/transit/keys/k', { headers: { 'x-vault-token': root } }),
    );
    const text = await r.text();
    expectGeneric(r.status, text, r.headers.get('x-request-id'));
    expect(text).not.toContain('EACCES');
    expect(logged).toHaveLength(1);
  });
});

describe('batch items', () => {
  it('an item failing with an internal error shows "internal error"; the detail is logged', async () => {
    const transit = new Transit({ autoRotate: false });
    const detail = 'barrier: the entry at transit/policy/k failed authentication';
    (transit as unknown as { encrypt: () => unknown }).encrypt = () =>
      runBatch<{ reference: string; ciphertext?: string; error?: string }>(
        [{}, {}, {}],
        (_item, i) => {
          if (i === 1) throw new TransitError('internal', detail);
          if (i === 2) throw new TransitError('invalid_request', 'missing plaintext to encrypt');
          return { ciphertext: 'vault:v1:x' };
        },
        (message) => ({ error: message }),
      );
    const logged: string[] = [];
    const h = createHandler(
      { transit },
      {
        auth: false,
        logger: { error: (m, e) => logged.push(`${m} ${e instanceof Error ? e.message : ''}`) },
      },
    );
    const r = await h.dispatch({
      method: 'POST',
      url: '/v1/transit/encrypt/k',
      headers: () => undefined,
      body: async () => '{"batch_input":[{},{},{}]}',
    });
    expect(r?.body).not.toContain('barrier');
    const body = JSON.parse(r?.body ?? '');
    expect(body.data.batch_results.map((x: { error?: string }) => x.error)).toEqual([
      undefined,
      'internal error',
      'missing plaintext to encrypt',
    ]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(body.request_id);
    expect(logged[0]).toContain(detail);
  });
});
