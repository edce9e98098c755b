/**
 * Bad input over real HTTP gets the right status and a useful `errors` message —
 * never a 500, never a crash. After every case the server still answers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { b64, type CliServer, call, rawRequest, startDev } from './helpers.js';

let server: CliServer;
beforeAll(async () => {
  server = await startDev(['--max-request-bytes', String(64 * 1024)]);
  await call(server, 'POST', '/v1/transit/keys/k', { body: {} });
});
afterEach(async () => {
  const r = await call(server, 'GET', '/v1/sys/health', { token: null });
  expect(r.status, 'server still answers').toBe(200);
});
afterAll(async () => {
  expect(server.stderr()).not.toMatch(/unexpected error/);
  expect(await server.stop()).toBe(0);
});

const errorOf = (r: { json: { errors?: string[] } }) => r.json?.errors?.[0] ?? '';

describe('malformed bodies', () => {
  it.each([
    ['truncated', '{"plaintext": "aGk="'],
    ['garbage', 'not json at all'],
    ['trailing comma', '{"plaintext": "aGk=",}'],
  ])('%s JSON → 400 failed to parse JSON input', async (_, body) => {
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', { body });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatch(/^failed to parse JSON input: /);
  });

  it('does not echo the body in the parse error (it may be plaintext)', async () => {
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', {
      body: '{"plaintext": SECRET-TEXT}',
    });
    expect(r.status).toBe(400);
    expect(r.text).not.toContain('SECRET');
  });

  it.each([
    ['an array', '[1, 2]'],
    ['a string', '"plaintext"'],
    ['a number', '42'],
  ])('a JSON body that is %s → 400', async (_, body) => {
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', { body });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toContain('must be a JSON object');
  });

  it('invalid UTF-8 → 400', async () => {
    const r = await call(server, 'POST', '/v1/transit/hash', {
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toContain('UTF-8');
  });

  it('an empty body is an empty request (the library names the missing field)', async () => {
    const r = await call(server, 'POST', '/v1/transit/hash', { body: '' });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatch(/input/);
  });
});

describe('wrong JSON types', () => {
  it.each([
    ['/v1/transit/keys/t1', { derived: 'maybe' }, 'derived', 'maybe'],
    ['/v1/transit/keys/t2', { key_size: 'big' }, 'key_size', 'big'],
    ['/v1/transit/keys/t3', { key_size: 3.5 }, 'key_size', '3.5'],
    ['/v1/transit/encrypt/k', { plaintext: { a: 1 } }, 'plaintext', '(a map)'],
    ['/v1/transit/encrypt/k', { batch_input: 'nope' }, 'batch_input', '(a string)'],
    ['/v1/transit/keys/k/config', { auto_rotate_period: [1] }, 'auto_rotate_period', '(a list)'],
    ['/v1/auth/token/create', { policies: [[1]] }, 'policies', '(a list)'],
    ['/v1/auth/token/create', { renewable: 2 }, 'renewable', '2'],
    ['/v1/auth/token/create', { num_uses: '08' }, 'num_uses', '08'],
    ['/v1/transit/keys/t4', { exportable: 'yes' }, 'exportable', 'yes'],
  ])('POST %s %j → 400 Field validation failed', async (url, body, field, shown) => {
    const r = await call(server, 'POST', url, { body });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toBe(
      `Field validation failed: error converting input ${shown} for field "${field}": ${errorOf(r).split(': ').pop()}`,
    );
  });

  it('converts weakly typed values as Vault does', async () => {
    const r = await call(server, 'POST', '/v1/transit/keys/weak', {
      body: { derived: 'true', exportable: 1, auto_rotate_period: '2h' },
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({
      derived: true,
      exportable: true,
      auto_rotate_period: 7200,
    });
  });

  it('a batch item of the wrong shape fails in the library with 400, not 500', async () => {
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', {
      body: { batch_input: [1, 'x'] },
    });
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatch(/batch input/);
  });
});

describe('unknown fields', () => {
  it("are ignored with Vault's warning", async () => {
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', {
      body: { plaintext: b64('x'), zeta: 1, alpha: true },
    });
    expect(r.status).toBe(200);
    expect(r.json.warnings).toEqual([
      'Endpoint ignored these unrecognized parameters: [alpha zeta]',
    ]);
  });

  it('on a 204 route turn the reply into 200 with the warning', async () => {
    const r = await call(server, 'POST', '/v1/auth/token/revoke', {
      body: { token: 'nope', extra: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.json.warnings[0]).toContain('[extra]');
  });
});

describe('bad base64 and bad values', () => {
  it.each([
    ['/v1/transit/encrypt/k', { plaintext: 'not base64!' }],
    ['/v1/transit/decrypt/k', { ciphertext: 'vault:v1:@@@' }],
    ['/v1/transit/hash', { input: 'a=b' }],
    ['/v1/transit/hmac/k', { input: '***' }],
  ])('POST %s → 400', async (url, body) => {
    const r = await call(server, 'POST', url, { body });
    expect(r.status).toBe(400);
    expect(errorOf(r).length).toBeGreaterThan(5);
  });
});

describe('oversized bodies (limit 64 KiB on this server)', () => {
  it('a declared Content-Length over the limit → 413 without reading it', async () => {
    const res = await rawRequest(
      server.url,
      `POST /v1/transit/hash HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${server.root}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"input":"`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 413 /);
    expect(res).toContain('http: request body too large');
  });

  it('a chunked body that grows past the limit → 413', async () => {
    const big = JSON.stringify({ input: b64('x'.repeat(100 * 1024)) });
    const r = await fetch(`${server.url}/v1/transit/hash`, {
      method: 'POST',
      headers: { 'x-vault-token': server.root },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(r.status).toBe(413);
    expect((await r.json()).errors).toEqual(['http: request body too large']);
  });

  it('a body just under the limit is served', async () => {
    const r = await call(server, 'POST', '/v1/transit/hash', {
      body: { input: b64('x'.repeat(40 * 1024)) },
    });
    expect(r.status).toBe(200);
  });

  it('an unauthenticated oversized request is refused before its body is read', async () => {
    const res = await rawRequest(
      server.url,
      'POST /v1/transit/hash HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n',
      500,
    );
    expect(res).toMatch(/^HTTP\/1\.1 403 /);
  });
});

describe('paths', () => {
  it.each(['/v1/transit/keys/a%2Fb', '/v1/transit/keys/%00'])(
    'traversal-looking key name %s → 400 invalid key name',
    async (url) => {
      const r = await call(server, 'GET', url);
      expect(r.status).toBe(400);
      expect(errorOf(r)).toMatch(/key name/);
    },
  );

  it.each(['/v1/transit/keys/..%2Fx', '/v1/transit/keys/%2e%2e%2fpolicy'])(
    'an encoded dot segment %s → 400 invalid request path (the ACL path joins on /)',
    async (url) => {
      const r = await call(server, 'GET', url);
      expect(r.status).toBe(400);
      expect(errorOf(r)).toBe('invalid request path');
    },
  );

  it('dot segments sent raw → 400 invalid request path', async () => {
    const res = await rawRequest(
      server.url,
      `GET /v1/transit/keys/../../sys/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
    expect(res).toContain('invalid request path');
  });

  it.each([
    'http://x/v1/transit/keys/../../sys/health',
    'http://x/v1/transit/keys/%2e%2e/%2E%2E/sys/health',
  ])('dot segments in an absolute-form target %s → 400, as in the origin form', async (target) => {
    // The URL parser would resolve them to /v1/sys/health: the target must name one path.
    const res = await rawRequest(
      server.url,
      `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${server.root}\r\nConnection: close\r\n\r\n`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
    expect(res).toContain('invalid request path');
  });

  it('an absolute-form target names the same route as the origin form', async () => {
    const res = await rawRequest(
      server.url,
      `GET http://x/v1/sys/health?standbyok=true HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 200 /);
    expect(res).toContain('"initialized":true');
  });

  it('a bad percent-escape → 400', async () => {
    const res = await rawRequest(
      server.url,
      `GET /v1/transit/keys/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
  });

  it.each([
    ['GET', '/v1/transit/nothing-here'],
    ['POST', '/v1/transit/keys/k/explode'],
    ['GET', '/v1/sys/unknown'],
    ['GET', '/v2/transit/keys/k'],
    ['GET', '/'],
  ])('unknown route %s %s → 404 unsupported path', async (method, url) => {
    const r = await call(server, method, url);
    expect(r.status).toBe(404);
    expect(r.json.errors).toEqual(['unsupported path']);
  });

  it.each([
    ['GET', '/v1/transit/encrypt/k', 'POST, PUT'],
    ['DELETE', '/v1/transit/hash', 'POST, PUT'],
    ['PATCH', '/v1/transit/keys/k', undefined],
    ['GET', '/v1/transit/keys', 'LIST'],
    ['HEAD', '/v1/transit/keys/k', undefined],
    ['OPTIONS', '/v1/transit/keys/k', undefined],
  ])('wrong method %s %s → 405 unsupported operation', async (method, url, allow) => {
    const r = await call(server, method, url);
    expect(r.status).toBe(405);
    if (method !== 'HEAD') expect(r.json.errors).toEqual(['unsupported operation']);
    if (allow) expect(r.headers.get('allow')).toBe(allow);
  });

  it('a method Node cannot parse is refused by Node with 400, and the server lives on', async () => {
    const res = await rawRequest(server.url, 'FOO@BAR / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1\.1 400 /);
  });
});

describe('tokens and wrapping', () => {
  it.each([
    [null, 'no token'],
    ['', 'empty token'],
    ['hvs.nope', 'unknown token'],
    ['x'.repeat(10_000), 'huge token'],
  ])('%s (%s) → 403 permission denied', async (token, _) => {
    const r = await call(server, 'POST', '/v1/transit/encrypt/k', {
      body: { plaintext: b64('x') },
      token: token === '' ? null : token,
      headers: token === '' ? { 'x-vault-token': '' } : {},
    });
    expect(r.status).toBe(403);
    expect(r.json.errors).toEqual(['permission denied']);
  });

  it('response wrapping is refused rather than silently ignored', async () => {
    const r = await call(server, 'POST', '/v1/transit/datakey/plaintext/k', {
      body: {},
      headers: { 'x-vault-wrap-ttl': '60s' },
    });
    expect(r.status).toBe(400);
    expect(r.json.errors[0]).toContain('wrapping');
  });
});

describe('status codes that cannot be sent', () => {
  it('partial_failure_response_code outside 200..599 only warns', async () => {
    const r = await call(server, 'POST', '/v1/transit/decrypt/k', {
      body: { batch_input: [{ ciphertext: 'vault:v1:AAAA' }], partial_failure_response_code: 42 },
    });
    expect(r.status).toBe(400);
  });

  it('health codes outside 200..599 → 400 {"errors":[]}', async () => {
    for (const q of ['activecode=42', 'activecode=1000', 'activecode=x', 'standbyok=maybe']) {
      const r = await call(server, 'GET', `/v1/sys/health?${q}`, { token: null });
      expect(r.status, q).toBe(400);
      expect(r.json).toEqual({ errors: [] });
    }
  });
});
