/**
 * What the streaming routes refuse before the first byte, over a real socket
 * (`transitkit/http/node`'s `createServer`), and in the dispatcher where a
 * test must see that the body was never touched: the token (403, with the
 * body unread and the connection closed), the ACL (`update` on each path:
 * encrypt-stream does not grant decrypt-stream, nor does transit/encrypt),
 * the sealed state (503), the method (405), the query fields (400, Vault's
 * field error; unknown ones warned in a `Warning` header or refused in
 * strict mode), response wrapping (400), and transit's own refusals (404 for
 * a missing key, 400 for a derived key without context, a wrong context, a
 * key version that does not exist, or an envelope made under another key)
 * with the texts transit gives.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type HttpRequest } from '../../adapters/http/index.js';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { bytes, served, sha256, streamPost } from './stream-support.js';

const ENC = '/v1/transit/encrypt-stream/k';
const DEC = '/v1/transit/decrypt-stream/k';
const plain = bytes(100_000);

const POLICY = `
path "transit/encrypt-stream/*" { capabilities = ["update"] }
path "transit/encrypt/*" { capabilities = ["update", "create"] }
`;

/** Send a request head and a few body bytes; resolve with what came back before close. */
function rawHead(url: string, head: string, bodyBytes: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(Buffer.alloc(bodyBytes, 1));
    });
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 5 s; got ${JSON.stringify(got)}`));
    }, 5000);
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', () => {});
  });
}

/** A dispatcher request whose body records whether anything read it. */
function spyRequest(url: string, headers: Record<string, string>) {
  const touched = { stream: false, body: false };
  const req: HttpRequest = {
    method: 'POST',
    url,
    headers: (n) => headers[n],
    body: async () => {
      touched.body = true;
      return new Uint8Array(0);
    },
    stream: () => {
      touched.stream = true;
      return new ReadableStream({ start: (c) => c.close() });
    },
  };
  return { req, touched };
}

describe('refusals before the first byte', () => {
  let s: Awaited<ReturnType<typeof served>>;
  let encOnly: string;
  beforeAll(async () => {
    s = await served('node-server');
    await s.policies.write('enc-stream', POLICY);
    const root = await s.tokens.authenticate(s.root);
    if (!root) throw new Error('no root');
    encOnly = (await s.tokens.create(root, { policies: ['enc-stream'] })).client_token;
  });
  afterAll(async () => {
    await s.close();
  });

  it('no token or a bad one: 403 before any body byte is read', async () => {
    const variants: Record<string, string>[] = [{}, { 'x-vault-token': 'not-a-token' }];
    for (const headers of variants) {
      const { req, touched } = spyRequest(ENC, headers);
      const r = await s.handler.dispatch(req);
      expect(r?.status).toBe(403);
      expect(JSON.parse(r?.body ?? '')).toEqual({ errors: ['permission denied'] });
      expect(touched).toEqual({ stream: false, body: false });
    }
  });

  it('over a socket, a 1 GiB upload without a token gets 403 at once and the connection closes', async () => {
    const head =
      'POST /v1/transit/encrypt-stream/k HTTP/1.1\r\nHost: x\r\n' +
      'Content-Type: application/octet-stream\r\nContent-Length: 1073741824\r\n\r\n';
    const got = await rawHead(s.url, head, 4096);
    expect(got).toMatch(/^HTTP\/1\.1 403 /);
    expect(got.toLowerCase()).toContain('connection: close');
    expect(got).toContain('{"errors":["permission denied"]}');
  });

  it('update on encrypt-stream grants neither decrypt-stream nor more', async () => {
    const e = await streamPost(s.url, ENC, plain, { token: encOnly });
    expect(e.status).toBe(200);
    const d = await streamPost(s.url, DEC, e.body, { token: encOnly });
    expect(d.status).toBe(403);
    expect(JSON.parse(d.body.toString())).toEqual({ errors: ['permission denied'] });
    // The root token decrypts what the limited token encrypted.
    const ok = await streamPost(s.url, DEC, e.body, { token: s.root });
    expect(sha256(ok.body)).toBe(sha256(plain));
  });

  it('transit/encrypt does not grant encrypt-stream', async () => {
    await s.policies.write('json-only', 'path "transit/encrypt/*" { capabilities = ["update"] }');
    const root = await s.tokens.authenticate(s.root);
    if (!root) throw new Error('no root');
    const t = (await s.tokens.create(root, { policies: ['json-only'] })).client_token;
    const { req, touched } = spyRequest(ENC, { 'x-vault-token': t });
    expect((await s.handler.dispatch(req))?.status).toBe(403);
    expect(touched.stream).toBe(false);
  });

  it('sealed or uninitialised: 503, body unread', async () => {
    const node = new TransitNode({ storage: new MemoryStorage() });
    const h = createHandler(node, { logger: { error: () => {} } });
    const { req, touched } = spyRequest(ENC, { 'x-vault-token': 'whatever' });
    const r = await h.dispatch(req);
    expect(r?.status).toBe(503);
    expect(JSON.parse(r?.body ?? '').errors).toHaveLength(1);
    expect(touched.stream).toBe(false);
    await node.close();
  });

  it("GET is 405 with Allow; a missing key is 404 with transit's text", async () => {
    const r = await fetch(s.url + ENC, { headers: { 'x-vault-token': s.root } });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST, PUT');
    const put = await fetch(`${s.url}/v1/transit/encrypt-stream/absent`, {
      method: 'PUT',
      headers: { 'x-vault-token': s.root },
      body: new Uint8Array(plain),
    });
    expect(put.status).toBe(404);
    expect(await put.json()).toEqual({ errors: ['encryption key not found'] });
    const e = await streamPost(s.url, ENC, plain, { token: s.root });
    const d = await streamPost(s.url, '/v1/transit/decrypt-stream/absent', e.body, {
      token: s.root,
    });
    // The library's not_found for a missing key (transit/decrypt's JSON row says 400).
    expect(d.status).toBe(404);
    expect(JSON.parse(d.body.toString())).toEqual({ errors: ['encryption key not found'] });
  });

  it('query fields: converted as Vault converts them, unknown ones warned', async () => {
    const bad = await streamPost(s.url, `${ENC}?key_version=abc`, plain, { token: s.root });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString()).errors[0]).toMatch(
      /^Field validation failed: error converting input abc for field "key_version"/,
    );
    const warned = await streamPost(s.url, `${ENC}?colour=blue`, plain, { token: s.root });
    expect(warned.status).toBe(200);
    expect(warned.headers.warning).toBe(
      '299 transitkit "Endpoint ignored these unrecognized parameters: [colour]"',
    );
    // A parameter name cannot break out of the header.
    const odd = await streamPost(s.url, `${ENC}?${encodeURIComponent('a"\r\nx: y')}=1`, plain, {
      token: s.root,
    });
    expect(odd.status).toBe(200);
    expect(odd.headers.x).toBeUndefined();
    expect(odd.headers.warning).toContain('[a\\"%0D%0Ax: y]');
  });

  it('strict unknown fields refuse an unknown query parameter before the body', async () => {
    const h = createHandler(s.services, { unknownFields: 'reject', logger: { error: () => {} } });
    const { req, touched } = spyRequest(`${ENC}?colour=blue`, { 'x-vault-token': s.root });
    const r = await h.dispatch(req);
    expect(r?.status).toBe(400);
    expect(touched.stream).toBe(false);
  });

  it('a body made for another key opens nothing: the path names the only key used', async () => {
    await s.transit.createKey('other');
    const e = await streamPost(s.url, ENC, plain, { token: s.root });
    expect(e.status).toBe(200);
    const d = await streamPost(s.url, '/v1/transit/decrypt-stream/other', e.body, {
      token: s.root,
    });
    expect(d.status).toBe(400);
    expect(d.headers['content-type']).toBe('application/json');
    expect(d.body.includes(plain.subarray(0, 64))).toBe(false);
    // A name that would leave its segment is refused before anything runs.
    const odd = await streamPost(s.url, '/v1/transit/decrypt-stream/k%2F..%2Fother', e.body, {
      token: s.root,
    });
    expect(odd.status).toBe(400);
  });

  it('response wrapping is refused as on every row', async () => {
    const r = await streamPost(s.url, ENC, plain, {
      token: s.root,
      headers: { 'x-vault-wrap-ttl': '60s' },
    });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body.toString())).toEqual({
      errors: ['response wrapping is not supported'],
    });
  });

  it('derived keys: context in the query wraps the data key; the same context decrypts', async () => {
    await s.transit.createKey('d', { derived: true });
    const ctx = Buffer.from('tenant-7').toString('base64');
    const none = await streamPost(s.url, '/v1/transit/encrypt-stream/d', plain, {
      token: s.root,
    });
    expect(none.status).toBe(400);
    expect(none.headers['content-type']).toBe('application/json');
    const e = await streamPost(
      s.url,
      `/v1/transit/encrypt-stream/d?context=${encodeURIComponent(ctx)}`,
      plain,
      { token: s.root },
    );
    expect(e.status).toBe(200);
    const wrong = Buffer.from('tenant-8').toString('base64');
    const w = await streamPost(
      s.url,
      `/v1/transit/decrypt-stream/d?context=${encodeURIComponent(wrong)}`,
      e.body,
      { token: s.root },
    );
    expect(w.status).toBe(400);
    const d = await streamPost(
      s.url,
      `/v1/transit/decrypt-stream/d?context=${encodeURIComponent(ctx)}`,
      e.body,
      { token: s.root },
    );
    expect(d.status).toBe(200);
    expect(sha256(d.body)).toBe(sha256(plain));
  });

  it('key_version picks the wrapping version; a missing one is refused', async () => {
    await s.transit.rotateKey('k');
    const v1 = await streamPost(s.url, `${ENC}?key_version=1`, plain, { token: s.root });
    expect(v1.status).toBe(200);
    expect(v1.body.subarray(6, 15).toString()).toBe('vault:v1:');
    const latest = await streamPost(s.url, ENC, plain, { token: s.root });
    expect(latest.body.subarray(6, 15).toString()).toBe('vault:v2:');
    const none = await streamPost(s.url, `${ENC}?key_version=9`, plain, { token: s.root });
    expect(none.status).toBe(400);
    expect(JSON.parse(none.body.toString()).errors).toHaveLength(1);
  });
});
