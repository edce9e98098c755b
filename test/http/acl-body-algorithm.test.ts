/**
 * A Vault policy that grants the exact URL a Vault client posts to must let
 * that request through. hvac (and the Vault CLI) send the algorithm in the
 * body: `sign_data(name, hash_input, hash_algorithm="sha2-256")` posts
 * `{"hash_algorithm": "sha2-256"}` to `transit/sign/<name>`,
 * `hash_data(..., algorithm=...)` posts to `transit/hash`,
 * `generate_hmac(..., algorithm=...)` to `transit/hmac/<name>`. Vault checks
 * the ACL on the request path only, so `path "transit/sign/k" {update}` grants
 * them. transitkit checked the ACL on the path completed from the body
 * (`transit/sign/k/sha2-256`, auth.ts `aclTail`) alone, which that exact-path
 * policy does not match: 403. Now a grant on the URL path suffices and the
 * completion can only refuse (a deny deciding it).
 *
 * The deny the spec asks for (`transit/sign/+/sha1` deny, also when sha1 is in
 * the body) can be kept: it is asserted here too, so a fix that simply drops
 * the completion would fail this file.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { TransitHandler } from '../../adapters/http/index.js';
import { inProcessAcl } from './acl-helpers.js';

const EXACT = `
path "transit/sign/ec" { capabilities = ["update"] }
path "transit/verify/ec" { capabilities = ["update"] }
path "transit/hmac/k" { capabilities = ["update"] }
path "transit/hash" { capabilities = ["update"] }
path "transit/sign/+/sha1" { capabilities = ["deny"] }
path "transit/hmac/+/sha1" { capabilities = ["deny"] }
`;

const BROAD_DENY = `
path "transit/*" { capabilities = ["deny"] }
path "transit/sign/ec" { capabilities = ["update"] }
path "transit/sign/ec/sha1" { capabilities = ["deny"] }
`;

let handler: TransitHandler;
let token: string;
let broadToken: string;

beforeEach(async () => {
  const made = await inProcessAcl({ exact: EXACT, 'broad-deny': BROAD_DENY });
  handler = made.handler;
  await made.transit.createKey('ec', { type: 'ecdsa-p256' });
  await made.transit.createKey('k');
  token = await made.token(['exact']);
  broadToken = await made.token(['broad-deny']);
});

async function post(path: string, body: unknown, as = token) {
  const r = await handler.fetch(
    new Request(`http://vault.test/v1${path}`, {
      method: 'POST',
      headers: { 'x-vault-token': as, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  const text = await r.text();
  return { status: r.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

const input = Buffer.from('doc').toString('base64');

describe('exact-path Vault policies and an algorithm in the body (as hvac sends it)', () => {
  it('sign_data(hash_algorithm="sha2-256") on transit/sign/ec is granted', async () => {
    const r = await post('/transit/sign/ec', { input, hash_algorithm: 'sha2-256' });
    expect(r.status, r.text).toBe(200);
  });

  it('verify_signed_data(hash_algorithm="sha2-384") on transit/verify/ec is granted', async () => {
    const r = await post('/transit/verify/ec', {
      input,
      hash_algorithm: 'sha2-384',
      signature: 'vault:v1:MEUCIQ==',
    });
    expect(r.status, r.text).not.toBe(403);
  });

  it('generate_hmac(algorithm="sha2-512") on transit/hmac/k is granted', async () => {
    const r = await post('/transit/hmac/k', { input, algorithm: 'sha2-512' });
    expect(r.status, r.text).toBe(200);
  });

  it('hash_data(algorithm="sha2-512") on transit/hash is granted', async () => {
    const r = await post('/transit/hash', { input, algorithm: 'sha2-512' });
    expect(r.status, r.text).toBe(200);
  });

  it('the sha1 deny still holds in both forms', async () => {
    expect((await post('/transit/sign/ec', { input, hash_algorithm: 'sha1' })).status).toBe(403);
    expect((await post('/transit/sign/ec/sha1', { input })).status).toBe(403);
    expect((await post('/transit/hmac/k', { input, algorithm: 'sha1' })).status).toBe(403);
  });
});

describe('a broad deny beside an exact grant (deny everything else)', () => {
  it('the exact URL grant decides, as in Vault; a deny naming the algorithm still refuses', async () => {
    const ok = await post('/transit/sign/ec', { input, hash_algorithm: 'sha2-256' }, broadToken);
    expect(ok.status, ok.text).toBe(200);
    expect((await post('/transit/sign/ec', { input }, broadToken)).status).toBe(200);
    const sha1 = await post('/transit/sign/ec', { input, hash_algorithm: 'sha1' }, broadToken);
    expect(sha1.status).toBe(403);
    expect(
      (await post('/transit/hmac/k', { input, algorithm: 'sha2-256' }, broadToken)).status,
    ).toBe(403);
  });
});
