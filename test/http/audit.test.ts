/**
 * Audit devices over real HTTP (a `TransitNode` behind `createHandler` on a
 * `node:http` server, a real file device): the routes and their sudo rule,
 * what the log holds (Vault's shape, in order, nothing raw: plaintexts,
 * ciphertexts, data keys and tokens are only ever HMACs, and the hash
 * `sys/audit-hash` gives for a known plaintext is the value in the log), and
 * fail closed: with the only device unable to record, a key create or rotate
 * is refused with 500 and not applied.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeAuditDevices } from '../../adapters/audit/index.js';
import { createHandler } from '../../adapters/http/index.js';
import {
  AclPolicyStore,
  AuditBroker,
  type AuditEntry,
  type AuditFailureInfo,
  MemoryStorage,
  TokenStore,
  Transit,
  TransitNode,
} from '../../src/index.js';
import { b64, call } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-http-'));
const failures: AuditFailureInfo[] = [];
let node: TransitNode;
let http: Server;
let server: { url: string; root: string };

async function listen(s: Server): Promise<string> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}

beforeAll(async () => {
  node = new TransitNode({
    storage: new MemoryStorage(),
    rootKey: new Uint8Array(32).fill(7),
    initialRootToken: 'root-token-for-audit-test',
    audit: {
      devices: nodeAuditDevices(),
      onFailure: (f) => failures.push(f),
      logger: { error: () => undefined },
    },
  });
  await node.start();
  http = createHttpServer(createHandler(node, { logger: { error: () => undefined } }).node);
  server = { url: await listen(http), root: 'root-token-for-audit-test' };
});
afterAll(async () => {
  await new Promise((r) => http.close(r));
  await node.close();
  rmSync(dir, { recursive: true, force: true });
});

const entries = (file: string): AuditEntry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEntry);

describe('sys/audit routes', () => {
  it('need sudo: a token whose policy grants the paths without sudo is refused', async () => {
    const policy =
      'path "sys/audit*" { capabilities = ["create", "read", "update", "delete", "list"] }';
    expect(
      (await call(server, 'PUT', '/v1/sys/policies/acl/auditor', { body: { policy } })).status,
    ).toBe(204);
    const t = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['auditor'] },
    });
    const token = t.json.auth.client_token as string;
    const as = { url: server.url, root: token };
    expect((await call(as, 'GET', '/v1/sys/audit')).status).toBe(403);
    const body = { type: 'file', options: { file_path: join(dir, 'nope.log') } };
    expect((await call(as, 'PUT', '/v1/sys/audit/nope', { body })).status).toBe(403);
    expect(
      (await call(as, 'PUT', '/v1/sys/audit-hash/nope', { body: { input: 'x' } })).status,
    ).toBe(403);
    const sudo =
      'path "sys/audit*" { capabilities = ["create", "read", "update", "delete", "list", "sudo"] }';
    await call(server, 'PUT', '/v1/sys/policies/acl/auditor', { body: { policy: sudo } });
    expect((await call(as, 'GET', '/v1/sys/audit')).status).toBe(200);
  });

  it('enable, list (Vault shape), refusals, disable', async () => {
    const file = join(dir, 'routes.log');
    const en = await call(server, 'PUT', '/v1/sys/audit/routes', {
      body: { type: 'file', description: 'd', options: { file_path: file }, local: false },
    });
    expect(en.status, en.text).toBe(204);
    const list = await call(server, 'GET', '/v1/sys/audit');
    const want = {
      type: 'file',
      description: 'd',
      options: { file_path: file },
      local: false,
      path: 'routes/',
    };
    expect(list.json['routes/']).toEqual(want);
    expect(list.json.data['routes/']).toEqual(want);
    const again = await call(server, 'PUT', '/v1/sys/audit/routes', {
      body: { type: 'file', options: { file_path: file } },
    });
    expect(again.status).toBe(400);
    expect(again.json.errors).toEqual(['path already in use']);
    const unknown = await call(server, 'PUT', '/v1/sys/audit/x', { body: { type: 'syslog' } });
    expect(unknown.json.errors).toEqual(['unknown audit device type "syslog"']);
    const noDir = await call(server, 'PUT', '/v1/sys/audit/x', {
      body: { type: 'file', options: { file_path: join(dir, 'missing', 'x.log') } },
    });
    expect(noDir.status).toBe(400);
    expect(noDir.json.errors[0]).toContain('sanity check failed');
    expect((await call(server, 'DELETE', '/v1/sys/audit/routes')).status).toBe(204);
    expect((await call(server, 'GET', '/v1/sys/audit')).json.data).toEqual({});
  });

  it('are 404 for fixed services without an audit broker, served with services.audit', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const base = {
      transit: new Transit({ storage }),
      tokens,
      policies: new AclPolicyStore({ storage }),
    };
    const headers = (n: string) => (n === 'x-vault-token' ? root : undefined);
    const without = createHandler(base);
    expect((await without.dispatch({ method: 'GET', url: '/v1/sys/audit', headers }))?.status).toBe(
      404,
    );
    const audit = await AuditBroker.open({ storage, devices: nodeAuditDevices() });
    const withAudit = createHandler({ ...base, audit });
    expect(
      (await withAudit.dispatch({ method: 'GET', url: '/v1/sys/audit', headers }))?.status,
    ).toBe(200);
    await audit.close();
  });
});

describe('the log', () => {
  it("holds Vault's entries in order, nothing raw; sys/audit-hash gives the logged value", async () => {
    const file = join(dir, 'main.log');
    await call(server, 'PUT', '/v1/sys/audit/main', {
      body: { type: 'file', options: { file_path: file } },
    });
    const plaintext = b64('the launch codes are 0000');
    expect((await call(server, 'POST', '/v1/transit/keys/audited')).status).toBe(200);
    const enc = await call(server, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext } });
    const ciphertext = enc.json.data.ciphertext as string;
    const dk = await call(server, 'POST', '/v1/transit/datakey/plaintext/audited');
    const batch = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(server, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext: b64(`p${i}`) } }),
      ),
    );
    const child = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['default'] },
    });
    const log = readFileSync(file, 'utf8');
    for (const secret of [
      plaintext,
      ciphertext,
      dk.json.data.plaintext,
      dk.json.data.ciphertext,
      server.root,
      child.json.auth.client_token,
      child.json.auth.accessor,
      ...batch.map((r) => r.json.data.ciphertext),
    ]) {
      expect(log.includes(secret), 'a raw value in the log').toBe(false);
    }
    const all = entries(file);
    const hash = await call(server, 'PUT', '/v1/sys/audit-hash/main', {
      body: { input: plaintext },
    });
    expect(hash.json.data.hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(hash.json.hash).toBe(hash.json.data.hash);
    const encReq = all.find(
      (e) => e.type === 'request' && e.request.data?.plaintext === hash.json.data.hash,
    );
    expect(encReq, 'the encrypt request entry carries the HMAC of the plaintext').toBeDefined();
    // Root holds create and update, so the upsert rule runs no existence check: `create`.
    expect(encReq?.request).toMatchObject({
      operation: 'create',
      mount_point: 'transit/',
      mount_type: 'transit',
      path: 'transit/encrypt/audited',
      remote_address: '127.0.0.1',
      namespace: { id: 'root' },
    });
    expect(encReq?.auth).toMatchObject({
      policies: ['root'],
      token_type: 'service',
      display_name: 'root',
    });
    const resp = all.find((e) => e.type === 'response' && e.request.id === encReq?.request.id);
    expect(resp?.response?.data?.ciphertext).toMatch(/^hmac-sha256:/);
    expect(resp?.response?.data?.key_version).toBe(1);
    expect(resp?.request.id).toBe(enc.json.request_id);
    // Every request entry comes before its response entry, and each has both.
    const seen = new Map<string, string[]>();
    for (const e of all) seen.set(e.request.id, [...(seen.get(e.request.id) ?? []), e.type]);
    for (const [id, types] of seen) expect(types, id).toEqual(['request', 'response']);
    const tokenResp = all.find(
      (e) => e.type === 'response' && e.request.path === 'auth/token/create',
    );
    expect(tokenResp?.response?.auth?.client_token).toMatch(/^hmac-sha256:/);
    // Health and seal-status are not audited.
    await call(server, 'GET', '/v1/sys/health');
    expect(entries(file).some((e) => e.request.path === 'sys/health')).toBe(false);
    // A refused call is logged with its error.
    await call(server, 'POST', '/v1/transit/decrypt/audited', {
      body: { ciphertext: 'vault:v1:AAAA' },
    });
    const failed = entries(file).filter((e) => e.request.path === 'transit/decrypt/audited');
    expect(failed.map((e) => e.type)).toEqual(['request', 'response']);
    expect(failed[1]?.error).toBeTruthy();
    await call(server, 'DELETE', '/v1/sys/audit/main');
  });
});

describe('streaming rows', () => {
  it('log the request (query fields) before the stream and its start after; the bytes never', async () => {
    const file = join(dir, 'stream.log');
    await call(server, 'PUT', '/v1/sys/audit/stream', {
      body: { type: 'file', options: { file_path: file } },
    });
    await call(server, 'POST', '/v1/transit/keys/streamed');
    const secret = 'streamed secret bytes '.repeat(100);
    const r = await fetch(`${server.url}/v1/transit/encrypt-stream/streamed`, {
      method: 'POST',
      headers: { 'x-vault-token': server.root },
      body: secret,
    });
    expect(r.status).toBe(200);
    const sealed = new Uint8Array(await r.arrayBuffer());
    expect(sealed.length).toBeGreaterThan(secret.length);
    const mine = entries(file).filter((e) => e.request.path === 'transit/encrypt-stream/streamed');
    expect(mine.map((e) => e.type)).toEqual(['request', 'response']);
    expect(mine[1]?.response?.data).toMatchObject({ status: 200, streamed: true });
    expect(readFileSync(file, 'utf8')).not.toContain('streamed secret');
    await call(server, 'DELETE', '/v1/sys/audit/stream');
  });

  it('a stream refused before its first byte is logged with its error, as a JSON row', async () => {
    const file = join(dir, 'stream-refused.log');
    await call(server, 'PUT', '/v1/sys/audit/refused', {
      body: { type: 'file', options: { file_path: file } },
    });
    const post = (path: string, body: string) =>
      fetch(`${server.url}/v1/transit/${path}`, {
        method: 'POST',
        headers: { 'x-vault-token': server.root },
        body,
      });
    expect((await post('decrypt-stream/streamed', 'not an envelope')).status).toBe(400);
    expect((await post('encrypt-stream/no-such-key', 'x')).status).toBe(404);
    for (const path of ['transit/decrypt-stream/streamed', 'transit/encrypt-stream/no-such-key']) {
      const mine = entries(file).filter((e) => e.request.path === path);
      expect(
        mine.map((e) => e.type),
        path,
      ).toEqual(['request', 'response']);
      expect(mine[1]?.error, path).toBeTruthy();
    }
    await call(server, 'DELETE', '/v1/sys/audit/refused');
  });
});

describe('refusals', () => {
  it('a request refused by the token or ACL check is logged with its error, as Vault', async () => {
    const file = join(dir, 'denied.log');
    await call(server, 'PUT', '/v1/sys/audit/denied', {
      body: { type: 'file', options: { file_path: file } },
    });
    const t = await call(server, 'POST', '/v1/auth/token/create', {
      body: { policies: ['default'] },
    });
    const weak = { url: server.url, root: t.json.auth.client_token as string };
    const plaintext = b64('not for this token');
    expect(
      (await call(weak, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext } })).status,
    ).toBe(403);
    const bogus = { url: server.url, root: 'no-such-token' };
    expect((await call(bogus, 'GET', '/v1/transit/keys/audited')).status).toBe(403);
    const [byAcl, byToken] = entries(file).filter((e) => e.error !== undefined);
    const hashed = await call(server, 'PUT', '/v1/sys/audit-hash/denied', {
      body: { input: weak.root },
    });
    const weakHash = hashed.json.data.hash as string;
    expect(byAcl).toMatchObject({
      type: 'request',
      error: 'permission denied',
      request: { path: 'transit/encrypt/audited', operation: 'update' },
      auth: {
        policies: ['default'],
        client_token: weakHash,
      },
    });
    expect(byToken).toMatchObject({
      type: 'request',
      error: 'permission denied',
      auth: {},
      request: { path: 'transit/keys/audited', operation: 'read' },
    });
    const log = readFileSync(file, 'utf8');
    expect(log).not.toContain(weak.root);
    expect(log).not.toContain('no-such-token');
    await call(server, 'DELETE', '/v1/sys/audit/denied');
  });
});

describe('refused fields', () => {
  it('a body or field refused after the checks is logged (request, then the error); its values hashed', async () => {
    const file = join(dir, 'invalid.log');
    await call(server, 'PUT', '/v1/sys/audit/invalid', {
      body: { type: 'file', options: { file_path: file } },
    });
    const secret = 'a plaintext field that is not base64 ###';
    const bad = await call(server, 'POST', '/v1/transit/encrypt/fields', {
      body: { plaintext: secret, key_version: 'many' },
    });
    expect(bad.status).toBe(400);
    const wrapped = await fetch(`${server.url}/v1/transit/encrypt/fields`, {
      method: 'POST',
      headers: { 'x-vault-token': server.root, 'x-vault-wrap-ttl': '60s' },
      body: JSON.stringify({ plaintext: b64('x') }),
    });
    expect(wrapped.status).toBe(400);
    const mine = entries(file).filter((e) => e.request.path === 'transit/encrypt/fields');
    expect(mine.map((e) => e.type)).toEqual(['request', 'response', 'request', 'response']);
    expect(mine[1]?.error).toBe(bad.json.errors[0]);
    expect(mine[3]?.error).toBe('response wrapping is not supported');
    expect(Object.keys(mine[0]?.request.data ?? {}).sort()).toEqual(['key_version', 'plaintext']);
    expect(String(mine[0]?.request.data?.plaintext)).toMatch(/^hmac-sha256:/);
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
    await call(server, 'DELETE', '/v1/sys/audit/invalid');
  });
});

describe('fail closed', () => {
  it('with the only device unable to record, create and rotate are refused and not applied', async () => {
    // A socket device whose listener is gone: every write is refused.
    const gone = createNetServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as { port: number }).port;
    await new Promise((r) => gone.close(r));
    expect((await call(server, 'POST', '/v1/transit/keys/rotated')).status).toBe(200);
    const en = await call(server, 'PUT', '/v1/sys/audit/broken', {
      body: { type: 'socket', options: { address: `127.0.0.1:${port}`, write_timeout: '1s' } },
    });
    expect(en.status, en.text).toBe(204);
    failures.length = 0;

    const create = await call(server, 'POST', '/v1/transit/keys/never-made');
    expect(create.status).toBe(500);
    expect(create.json.errors[0]).toBe('internal error');
    const rotate = await call(server, 'POST', '/v1/transit/keys/rotated/rotate');
    expect(rotate.status).toBe(500);
    expect(failures.map((f) => `${f.path} ${f.entry}`)).toEqual([
      'broken/ request',
      'broken/ request',
    ]);

    // Nothing ran: the key was not made, the rotation not applied.
    expect(await node.transit.readKey('never-made').catch((e: Error) => e.message)).toBe(
      'no key named never-made',
    );
    expect((await node.transit.readKey('rotated')).latest_version).toBe(1);

    // A second, working device is enough.
    const file = join(dir, 'second.log');
    await node.audit.enable('second', { type: 'file', options: { file_path: file } });
    expect((await call(server, 'POST', '/v1/transit/keys/rotated/rotate')).status).toBe(200);
    expect((await node.transit.readKey('rotated')).latest_version).toBe(2);
    await node.audit.disable('broken');
    await node.audit.disable('second');
  });

  it('a socket listener that stops reading: requests are refused after write_timeout, never stall', async () => {
    const sockets: import('node:net').Socket[] = [];
    const stuck = createNetServer((sock) => {
      sock.pause(); // accepts, never reads
      sockets.push(sock);
    });
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', r));
    const port = (stuck.address() as { port: number }).port;
    await node.audit.enable('stuck', {
      type: 'socket',
      // log_raw: the entries carry the 1 MiB plaintexts, so the kernel buffers fill fast.
      options: { address: `127.0.0.1:${port}`, write_timeout: '400ms', log_raw: true },
    });
    const plaintext = Buffer.alloc(1024 * 1024, 1).toString('base64');
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(500); i++) {
      const t0 = Date.now();
      const r = await call(server, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext } });
      statuses.push(r.status);
      // Never longer than about two write timeouts (plus the request itself).
      expect(Date.now() - t0).toBeLessThan(3000);
    }
    expect(statuses).toContain(500);
    expect(
      failures.some((f) => f.path === 'stuck/' && f.reason.includes('timed out after 400 ms')),
    ).toBe(true);
    // Once the listener is gone and the device disabled, requests go through again.
    await node.audit.disable('stuck');
    for (const sock of sockets) sock.destroy();
    await new Promise((r) => stuck.close(r));
    expect(
      (await call(server, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext: 'eA==' } }))
        .status,
    ).toBe(200);
  });
});

describe('sys/seal', () => {
  it('logs its request entry before sealing (no response entry: the devices close); unrecorded, it does not seal', async () => {
    const own = new TransitNode({
      storage: new MemoryStorage(),
      rootKey: new Uint8Array(32).fill(9),
      initialRootToken: 'root-token-for-seal-audit',
      audit: { devices: nodeAuditDevices(), logger: { error: () => undefined } },
    });
    await own.start();
    const s = createHttpServer(createHandler(own, { logger: { error: () => undefined } }).node);
    const at = { url: await listen(s), root: 'root-token-for-seal-audit' };
    try {
      // With the only device unable to record: refused, and still unsealed.
      const gone = createNetServer();
      await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
      const port = (gone.address() as { port: number }).port;
      await new Promise((r) => gone.close(r));
      await own.audit.enable('broken', {
        type: 'socket',
        options: { address: `127.0.0.1:${port}`, write_timeout: '1s' },
      });
      expect((await call(at, 'POST', '/v1/sys/seal')).status).toBe(500);
      expect(own.sealed).toBe(false);
      await own.audit.disable('broken');
      // Recorded: sealed, and the log holds the request.
      const file = join(dir, 'seal.log');
      await own.audit.enable('file', { type: 'file', options: { file_path: file } });
      expect((await call(at, 'POST', '/v1/sys/seal')).status).toBe(204);
      expect(own.sealed).toBe(true);
      const mine = entries(file).filter((e) => e.request.path === 'sys/seal');
      expect(mine.map((e) => `${e.type} ${e.request.operation}`)).toEqual(['request update']);
    } finally {
      await new Promise((r) => s.close(r));
      await own.close();
    }
  });
});
