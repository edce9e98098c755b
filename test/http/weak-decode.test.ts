/**
 * Vault's weak decoding at the HTTP edge, over real HTTP (a node server on
 * 127.0.0.1): typed fields take what Vault's framework takes
 * (mapstructure `WeakDecode`), and `auth/token/create` decodes its body as
 * Vault's token store does (`meta` into `map[string]string`, `policies` into
 * `[]string`), so a body Vault accepts gives the same token here.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers.js';
import { serveTokenServicesForFile } from './token-services.js';

const served = serveTokenServicesForFile();

const errorOf = (r: { json: { errors?: string[] } }) => r.json?.errors?.[0] ?? '';

describe("typed fields as Vault's framework decodes them", () => {
  it('bool: "" is false, "t" true; int: a Go literal ("0x10") and "" (0)', async () => {
    const made = await call(served, 'POST', '/v1/transit/keys/weak', {
      body: { exportable: '', derived: 't', allow_plaintext_backup: 'F' },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.json.data).toMatchObject({
      exportable: false,
      derived: true,
      allow_plaintext_backup: false,
    });
    const random = await call(served, 'POST', '/v1/transit/random', {
      body: { bytes: '0x10' },
    });
    expect(random.status, random.text).toBe(200);
    expect(Buffer.from(random.json.data.random_bytes, 'base64')).toHaveLength(16);
    const rotated = await call(served, 'POST', '/v1/transit/keys/weak/rotate', { body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    // key_version "" is 0: the latest version.
    const enc = await call(served, 'POST', '/v1/transit/encrypt/weak', {
      body: { plaintext: 'aGk=', context: 'Y3R4', key_version: '' },
    });
    expect(enc.status, enc.text).toBe(200);
    expect(enc.json.data.ciphertext).toMatch(/^vault:v2:/);
  });

  it('a string field takes a boolean as "1"/"0" (so the name is checked, not "true")', async () => {
    const r = await call(served, 'POST', '/v1/transit/hmac/weak', {
      body: { input: 'aGk=', algorithm: true },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toContain('1');
    expect(errorOf(r)).not.toContain('true');
  });
});

describe("auth/token/create's body as Vault's token store decodes it", () => {
  it('meta values as text, policies as a list of text, bools and ints weakly', async () => {
    const made = await call(served, 'POST', '/v1/auth/token/create', {
      body: {
        meta: { n: 1, b: true, f: false, s: 'x', z: null },
        policies: [7, 'app'],
        renewable: 'f',
        num_uses: '0x3',
        no_default_policy: 0, // 0 is false: `default` is attached (lookup-self needs it)
        display_name: 42,
      },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.json.auth).toMatchObject({
      policies: ['7', 'app', 'default'],
      renewable: false,
      metadata: { n: '1', b: '1', f: '0', s: 'x', z: '' },
    });
    const token: string = made.json.auth.client_token;
    const self = await call({ url: served.url, root: token }, 'GET', '/v1/auth/token/lookup-self');
    expect(self.status, self.text).toBe(200);
    expect(self.json.data).toMatchObject({
      meta: { n: '1', b: '1', f: '0', s: 'x', z: '' },
      policies: ['7', 'app', 'default'],
      num_uses: 2, // one use spent on the lookup itself
      display_name: 'token-42',
    });
  });

  it('an empty list is empty metadata; a single number is one policy', async () => {
    const made = await call(served, 'POST', '/v1/auth/token/create', {
      body: { meta: [], policies: 5 },
    });
    expect(made.status, made.text).toBe(200);
    expect(made.json.auth.policies).toEqual(['5', 'default']);
    expect(made.json.auth.metadata).toEqual({});
  });

  it('policies "" or [""] name no policy (default alone); [] and {} inherit the parent\'s', async () => {
    for (const policies of ['', [''], [null]]) {
      const made = await call(served, 'POST', '/v1/auth/token/create', { body: { policies } });
      expect(made.status, made.text).toBe(200);
      expect(made.json.auth.policies, JSON.stringify(policies)).toEqual(['default']);
    }
    for (const policies of [[], {}]) {
      const made = await call(served, 'POST', '/v1/auth/token/create', { body: { policies } });
      expect(made.json.auth.policies, JSON.stringify(policies)).toEqual(['root']);
    }
  });

  it.each([
    [{ meta: { a: { b: 1 } } }, 'meta'],
    [{ meta: 'a=b' }, 'meta'],
    [{ policies: [{ a: 1 }] }, 'policies'],
    [{ renewable: 'yes' }, 'renewable'],
    [{ num_uses: 1.5 }, 'num_uses'],
  ])('refuses %j (%s) as Vault does, with 400', async (body, field) => {
    const r = await call(served, 'POST', '/v1/auth/token/create', { body });
    expect(r.status, r.text).toBe(400);
    expect(errorOf(r)).toContain(field);
  });
});
