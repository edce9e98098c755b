/**
 * Vault's HTTP layer (http/logical.go `isForm` / `parseFormRequest`, in Vault
 * since 1.9 and in OpenBao) accepts a POST/PUT body sent as
 * `application/x-www-form-urlencoded` when it does not start like JSON
 * (`{` or `[`): `curl -d plaintext=...`, HTML forms, and clients that post
 * forms get their fields read. transitkit parsed every body as JSON and
 * answered 400 `failed to parse JSON input`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type TransitHandler } from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';

let handler: TransitHandler;

beforeAll(async () => {
  const transit = new Transit({ autoRotate: false });
  handler = createHandler({ transit }, { auth: false, logger: { error: () => undefined } });
  await transit.createKey('k');
});

async function form(path: string, body: string) {
  const r = await handler.fetch(
    new Request(`http://vault.test/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    }),
  );
  const text = await r.text();
  return { status: r.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

describe('form-urlencoded bodies (Vault http/logical.go isForm)', () => {
  it('encrypt with plaintext=… as a form field', async () => {
    const pt = Buffer.from('hello form').toString('base64');
    const r = await form('/transit/encrypt/k', `plaintext=${encodeURIComponent(pt)}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.ciphertext).toMatch(/^vault:v1:/);
  });

  it('create a key with type=… as a form field', async () => {
    const r = await form('/transit/keys/f1', 'type=ecdsa-p256&exportable=true');
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.type).toBe('ecdsa-p256');
    expect(r.json.data.exportable).toBe(true);
  });

  it('a JSON body sent with the form content type is still JSON (as curl -d sends)', async () => {
    const pt = Buffer.from('x').toString('base64');
    const r = await form('/transit/encrypt/k', JSON.stringify({ plaintext: pt }));
    expect(r.status, r.text).toBe(200);
  });

  it('a repeated field is its values joined with commas; __proto__ is a plain field', async () => {
    const r = await form('/transit/keys/f2', 'type=aes256-gcm96&__proto__=x&exportable=true');
    expect(r.status, r.text).toBe(200);
    expect(r.json.warnings).toEqual([
      'Endpoint ignored these unrecognized parameters: [__proto__]',
    ]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a form with more fields than maxListItems is refused before any is read', async () => {
    const limited = createHandler(
      { transit: new Transit({ autoRotate: false }) },
      { auth: false, logger: { error: () => undefined }, jsonLimits: { maxListItems: 10 } },
    );
    const r = await limited.fetch(
      new Request('http://vault.test/v1/transit/keys/f3', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: Array.from({ length: 100_000 }, (_, i) => `f${i}=`).join('&'),
      }),
    );
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      errors: ['failed to parse form input: more than 10 fields'],
    });
  });
});
