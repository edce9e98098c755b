/**
 * Sign and verify items read as Vault's `path_sign_verify.go` reads them:
 * - a verify batch item carrying a `signature` is a signature item, its `hmac`
 *   unread: one with both beside an hmac-only item is a mix of kinds (400), and
 *   a batch of such items is a signature batch (an AES key cannot verify it);
 * - an item's `context` is decoded whatever the key, so a malformed one is
 *   `failed to base64-decode context` (an error item in a batch), as encrypt
 *   answers, not ignored because the key is not derived.
 */
import { describe, expect, it } from 'vitest';
import { b64, vaultHandler } from './helpers.js';

async function setup() {
  const { vault, rootToken } = await vaultHandler();
  const call = async (path: string, body: unknown) => {
    const r = await vault.fetch(
      new Request(`http://x/v1/${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'x-vault-token': rootToken },
      }),
    );
    return { status: r.status, json: await r.json() };
  };
  expect((await call('transit/keys/k', {})).status).toBe(200);
  expect((await call('transit/keys/e', { type: 'ecdsa-p256' })).status).toBe(200);
  const mac = await call('transit/hmac/k', { input: b64('hi') });
  return { call, hmac: mac.json.data.hmac as string };
}

const FAKE_SIGNATURE = 'vault:v1:bm90LWEtc2lnbmF0dXJl';

describe('verify batch items carrying both hmac and signature', () => {
  it('beside an hmac-only item: a mix of kinds, 400', async () => {
    const { call, hmac } = await setup();
    const r = await call('transit/verify/k', {
      batch_input: [
        { input: b64('hi'), hmac },
        { input: b64('hi'), hmac, signature: FAKE_SIGNATURE },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual([
      "elements of batch_input must all provide 'signature' or all provide 'hmac'",
    ]);
  });

  it('alone: a signature item, never valid from its hmac', async () => {
    const { call, hmac } = await setup();
    const r = await call('transit/verify/k', {
      batch_input: [{ input: b64('hi'), hmac, signature: FAKE_SIGNATURE }],
    });
    expect(r.status).toBe(400);
    expect(r.json.errors).toEqual(['key type aes256-gcm96 does not support verification']);
  });
});

describe('in a batch, an empty signature is a signature (Vault tests presence)', () => {
  it('in a batch beside an hmac-only item: a mix of kinds, 400', async () => {
    const { call, hmac } = await setup();
    const r = await call('transit/verify/k', {
      batch_input: [
        { input: b64('hi'), hmac },
        { input: b64('hi'), hmac, signature: '' },
      ],
    });
    expect(r).toMatchObject({
      status: 400,
      json: {
        errors: ["elements of batch_input must all provide 'signature' or all provide 'hmac'"],
      },
    });
  });

  it('alone in a batch: a signature batch', async () => {
    const { call, hmac } = await setup();
    const batch = await call('transit/verify/k', {
      batch_input: [{ input: b64('hi'), hmac, signature: '' }],
    });
    expect(batch).toMatchObject({
      status: 400,
      json: { errors: ['key type aes256-gcm96 does not support verification'] },
    });
  });
});

describe('a malformed context on a key that is not derived', () => {
  it('sign and verify refuse it as encrypt does', async () => {
    const { call } = await setup();
    const enc = await call('transit/encrypt/k', { plaintext: b64('x'), context: '!!' });
    expect(enc).toMatchObject({
      status: 400,
      json: { errors: ['failed to base64-decode context'] },
    });
    const sign = await call('transit/sign/e', { input: b64('x'), context: '!!' });
    expect(sign).toMatchObject({
      status: 400,
      json: { errors: ['failed to base64-decode context'] },
    });
    const good = await call('transit/sign/e', { input: b64('x') });
    const verify = await call('transit/verify/e', {
      input: b64('x'),
      signature: good.json.data.signature,
      context: '!!',
    });
    expect(verify).toMatchObject({
      status: 400,
      json: { errors: ['failed to base64-decode context'] },
    });
  });

  it('in a batch, that item is an error item and the others are signed', async () => {
    const { call } = await setup();
    const r = await call('transit/sign/e', {
      batch_input: [{ input: b64('x') }, { input: b64('x'), context: '!!' }],
    });
    expect(r.status).toBe(200);
    expect(r.json.data.batch_results[0].signature).toMatch(/^vault:v1:/);
    expect(r.json.data.batch_results[1].error).toBe('failed to base64-decode context');
  });
});
