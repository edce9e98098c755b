/**
 * ACL policies over real HTTP: the token headers, Vault's upsert rule (encrypt
 * needs `create` on a missing key, `update` on an existing one), read and list
 * by exact path, the spec's SHA-1 deny on verify and sign (also when the body
 * names the algorithm), and the default policy's lookup-self.
 */
import { describe, expect, it } from 'vitest';
import { APP_POLICY, withAppServer } from './acl-helpers.js';
import { b64, type CliServer, call } from './helpers.js';

let server: CliServer;
let app: string;
const as = (token: string) => ({ url: server.url, root: token });

withAppServer((s) => ({ server, app } = s));

const enc = (token: string, key: string) =>
  call(as(token), 'POST', `/v1/transit/encrypt/${key}`, { body: { plaintext: b64('hi') } });

describe('token headers', () => {
  it('accepts X-Service-Token, X-Vault-Token and Authorization: Bearer', async () => {
    const variants: Record<string, string>[] = [
      { 'x-service-token': app },
      { 'x-vault-token': app },
      { authorization: `Bearer ${app}` },
      // An empty header is no token; the next one counts.
      { 'x-service-token': '', 'x-vault-token': app },
      { 'x-vault-token': ' ', authorization: `Bearer ${app}` },
    ];
    for (const headers of variants) {
      const r = await call(server, 'POST', '/v1/transit/encrypt/app-1', {
        body: { plaintext: b64('x') },
        token: null,
        headers,
      });
      expect(r.status, JSON.stringify(Object.keys(headers))).toBe(200);
    }
  });
});

describe('the upsert rule (create vs update)', () => {
  it('update only: an existing key encrypts, a missing one is 403', async () => {
    expect((await enc(app, 'app-1')).status).toBe(200);
    expect((await enc(app, 'app-2')).status).toBe(403);
    expect((await call(server, 'GET', '/v1/transit/keys/app-2')).status).toBe(404);
  });

  it('create only: a missing key is upserted, then (existing) it is 403', async () => {
    expect((await enc(app, 'new-1')).status).toBe(200);
    expect((await call(server, 'GET', '/v1/transit/keys/new-1')).status).toBe(200);
    expect((await enc(app, 'new-1')).status).toBe(403);
  });

  it('create and update: both work', async () => {
    expect((await enc(app, 'both')).status).toBe(200);
    expect((await enc(app, 'both')).status).toBe(200);
  });

  it('disable_upsert turns the create path into 400 encryption key not found', async () => {
    await call(server, 'POST', '/v1/transit/config/keys', { body: { disable_upsert: true } });
    const r = await enc(app, 'new-2');
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual(['encryption key not found']);
    await call(server, 'POST', '/v1/transit/config/keys', { body: { disable_upsert: false } });
  });
});

describe('paths and capabilities', () => {
  it('read and list by exact path; anything else is denied by default', async () => {
    expect((await call(as(app), 'GET', '/v1/transit/keys/app-1')).status).toBe(200);
    expect((await call(as(app), 'GET', '/v1/transit/keys/new-1')).status).toBe(403);
    expect((await call(as(app), 'LIST', '/v1/transit/keys')).status).toBe(200);
    expect((await call(as(app), 'GET', '/v1/transit/keys?list=true')).status).toBe(200);
    expect((await call(as(app), 'DELETE', '/v1/transit/keys/app-1')).status).toBe(403);
    expect((await call(as(app), 'POST', '/v1/transit/decrypt/app-1', { body: {} })).status).toBe(
      403,
    );
    expect(
      (await call(as(app), 'PUT', '/v1/sys/policy/x', { body: { policy: APP_POLICY } })).status,
    ).toBe(403);
  });

  it('denies SHA-1 verification by path, and when the body names it', async () => {
    const mac = await call(as(app), 'POST', '/v1/transit/hmac/app-1', {
      body: { input: b64('m') },
    });
    expect(mac.status).toBe(200);
    const hmac = mac.json.data.hmac;
    const ok = await call(as(app), 'POST', '/v1/transit/verify/app-1/sha2-256', {
      body: { input: b64('m'), hmac },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.data.valid).toBe(true);
    for (const [url, body] of [
      ['/v1/transit/verify/app-1/sha1', { input: b64('m'), hmac }],
      ['/v1/transit/verify/app-1', { input: b64('m'), hmac, hash_algorithm: 'sha1' }],
      ['/v1/transit/verify/app-1', { input: b64('m'), hmac, algorithm: 'sha1' }],
    ] as const) {
      const r = await call(as(app), 'POST', url, { body });
      expect(r.status, `${url} ${JSON.stringify(body)}`).toBe(403);
      expect(r.json.errors).toEqual(['permission denied']);
    }
  });

  it('denies SHA-1 signing by path and by body, allows SHA-2', async () => {
    expect(
      (await call(server, 'POST', '/v1/transit/keys/app-ec', { body: { type: 'ecdsa-p256' } }))
        .status,
    ).toBe(200);
    const input = b64('doc');
    expect(
      (await call(as(app), 'POST', '/v1/transit/sign/app-ec/sha2-256', { body: { input } })).status,
    ).toBe(200);
    expect(
      (await call(as(app), 'POST', '/v1/transit/sign/app-ec', { body: { input } })).status,
    ).toBe(200);
    for (const [url, body] of [
      ['/v1/transit/sign/app-ec/sha1', { input }],
      ['/v1/transit/sign/app-ec', { input, hash_algorithm: 'sha1' }],
      ['/v1/transit/sign/app-ec', { input, algorithm: 'sha1' }],
    ] as const) {
      expect(
        (await call(as(app), 'POST', url, { body })).status,
        `${url} ${JSON.stringify(body)}`,
      ).toBe(403);
    }
  });

  it('the default policy lets a token look itself up', async () => {
    const r = await call(as(app), 'GET', '/v1/auth/token/lookup-self');
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      policies: ['app', 'default'],
      path: 'auth/token/create',
      type: 'service',
    });
    expect(r.json.data.ttl).toBeGreaterThan(3500);
  });
});
