/**
 * What a file audit device's log holds, over real HTTP (a `TransitNode` behind
 * `createHandler` on a `node:http` server): Vault's shape, in order, nothing
 * raw (plaintexts, ciphertexts, data keys and tokens are only ever HMACs, and
 * the hash `sys/audit-hash` gives for a known plaintext is the value in the
 * log); streaming rows (the request before the stream, never the bytes); and
 * requests refused by the token or ACL check, or for their body or fields,
 * logged with their error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entries, withAuditServer } from './audit-helpers.js';
import { b64, call } from './helpers.js';

let dir: string;
let server: { url: string; root: string };

withAuditServer((s) => ({ server, dir } = s));

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
