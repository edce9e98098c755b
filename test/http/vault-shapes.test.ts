/**
 * Vault's HTTP shapes where the adapter differed (issue #15 items 14 and the
 * HTTP part of 15), in process through the fetch binding:
 *
 * - `GET transit/keys/:name?context=…` returns a derived Ed25519 key's public
 *   key for that context (the library's `readKey(name, { context })`), not the
 *   context-free one with an "ignored parameters" warning;
 * - a method other than GET or HEAD on `sys/health` is Vault's 405
 *   `{"errors":[]}`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type TransitHandler } from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';

let transit: Transit;
let handler: TransitHandler;

beforeAll(async () => {
  transit = new Transit({ autoRotate: false });
  handler = createHandler({ transit }, { auth: false, logger: { error: () => undefined } });
  await transit.createKey('ed', { type: 'ed25519', derived: true });
});

async function req(method: string, path: string, body?: unknown) {
  const r = await handler.fetch(
    new Request(`http://vault.test/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const text = await r.text();
  return { status: r.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

const ctxA = Buffer.from('tenant-a').toString('base64');
const ctxB = Buffer.from('tenant-b').toString('base64');

describe('GET transit/keys/:name?context= (item 14)', () => {
  it('returns the public key derived for the context', async () => {
    const want = (await transit.readKey('ed', { context: ctxA })).keys;
    const r = await req('GET', `/transit/keys/ed?context=${encodeURIComponent(ctxA)}`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.warnings).toBeNull();
    expect(r.json.data.keys).toEqual(want);
    const pubA = r.json.data.keys['1'].public_key;
    expect(typeof pubA).toBe('string');
    const b = await req('GET', `/transit/keys/ed?context=${encodeURIComponent(ctxB)}`);
    expect(b.json.data.keys['1'].public_key).not.toBe(pubA);
  });

  it('the signature made with that context verifies against that public key', async () => {
    const input = Buffer.from('hello').toString('base64');
    const sig = await req('POST', '/transit/sign/ed', { input, context: ctxA });
    expect(sig.status, sig.text).toBe(200);
    const key = await req('GET', `/transit/keys/ed?context=${encodeURIComponent(ctxA)}`);
    const pub = Buffer.from(key.json.data.keys['1'].public_key, 'base64');
    const { createPublicKey, verify } = await import('node:crypto');
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]);
    const raw = Buffer.from(sig.json.data.signature.split(':')[2], 'base64');
    const ok = verify(
      null,
      Buffer.from('hello'),
      createPublicKey({ key: spki, format: 'der', type: 'spki' }),
      raw,
    );
    expect(ok).toBe(true);
  });

  it('a context that is not base64 is a 400, not a 500', async () => {
    const r = await req('GET', '/transit/keys/ed?context=%%%');
    expect([400]).toContain(r.status);
  });
});

describe('sys/health with another method (item 15)', () => {
  it('is 405 {"errors":[]} as Vault', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await req(method, '/sys/health', method === 'DELETE' ? undefined : {});
      expect(r.status, method).toBe(405);
      expect(r.json, method).toEqual({ errors: [] });
    }
    expect((await req('GET', '/sys/health')).status).toBe(200);
  });
});
