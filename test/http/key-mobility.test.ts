/**
 * Key mobility over real HTTP (`transitkit server --dev`): Vault's BYOK flow
 * as a client scripts it — read the wrapping key, wrap material locally,
 * import, use it, add a version, byok-export to another key — and the
 * refusals as `{"errors": [...]}` with 400/404 (never 500), no key created.
 */
import { generateKeyPairSync, verify as nodeVerify, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapForImport } from '../transit/import-support.js';
import { b64, type CliServer, call, startDev } from './helpers.js';

let server: CliServer;
let wrap: string;
beforeAll(async () => {
  server = await startDev();
  const r = await call(server, 'GET', '/v1/transit/wrapping_key');
  expect(r.status).toBe(200);
  wrap = r.json.data.public_key;
}, 120_000);
afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

const post = (path: string, body: unknown) => call(server, 'POST', path, { body });

describe('BYOK over HTTP', () => {
  it('imports an ECDSA key, signs with it, and the wrapping key stays out of the listing', async () => {
    const k = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = k.privateKey.export({ format: 'der', type: 'pkcs8' });
    const r = await post('/v1/transit/keys/http-ec/import', {
      type: 'ecdsa-p256',
      ciphertext: wrapForImport(wrap, der),
      hash_function: 'SHA256',
    });
    expect(r.status, r.text).toBe(204);
    const read = await call(server, 'GET', '/v1/transit/keys/http-ec');
    expect(read.json.data).toMatchObject({
      imported: true,
      imported_key: true,
      type: 'ecdsa-p256',
    });
    const s = await post('/v1/transit/sign/http-ec', { input: b64('hello') });
    const sig = Buffer.from((s.json.data.signature as string).split(':')[2] as string, 'base64');
    expect(nodeVerify('sha256', Buffer.from('hello'), k.publicKey, sig)).toBe(true);
    const list = await call(server, 'LIST', '/v1/transit/keys');
    expect(list.json.data.keys).not.toContain('import/');
    expect(list.json.data.keys.some((n: string) => n.includes('/'))).toBe(false);
  });

  it('import_version, then byok-export of one version to an RSA key', async () => {
    const key = () => wrapForImport(wrap, randomBytes(32));
    expect(
      (
        await post('/v1/transit/keys/http-aes/import', {
          type: 'aes256-gcm96',
          ciphertext: key(),
          exportable: 'true',
        })
      ).status,
    ).toBe(204);
    expect(
      (await post('/v1/transit/keys/http-aes/import_version', { ciphertext: key() })).status,
    ).toBe(204);
    expect(
      (await post('/v1/transit/keys/http-dest/import', { type: 'rsa-4096', public_key: wrap }))
        .status,
    ).toBe(204);
    const out = await call(server, 'GET', '/v1/transit/byok-export/http-dest/http-aes/2');
    expect(out.status, out.text).toBe(200);
    expect(Object.keys(out.json.data.keys)).toEqual(['2']);
    // The blob is for this server's own wrapping key: it imports back here.
    const again = await post('/v1/transit/keys/http-aes-2/import', {
      type: 'aes256-gcm96',
      ciphertext: out.json.data.keys['2'],
    });
    expect(again.status, again.text).toBe(204);
  });

  it('refusals are 400 or 404 with a message, and create nothing', async () => {
    const before = (await call(server, 'LIST', '/v1/transit/keys')).json.data.keys;
    const blob = wrapForImport(wrap, randomBytes(32));
    // A missing key is 404 with Vault's empty `errors` list.
    const cases: [string, string, unknown, number, RegExp | null][] = [
      [
        'POST',
        '/v1/transit/keys/h1/import',
        { type: 'aes256-gcm96', ciphertext: blob.slice(0, 600) },
        400,
        /too short|base64/,
      ],
      [
        'POST',
        '/v1/transit/keys/h1/import',
        { type: 'aes256-gcm96', ciphertext: blob, hash_function: 'SHA1' },
        400,
        /hash_function/,
      ],
      [
        'POST',
        '/v1/transit/keys/h1/import',
        { type: 'ed25519', ciphertext: blob },
        400,
        /error parsing asymmetric key/,
      ],
      [
        'POST',
        '/v1/transit/keys/h1/import',
        { type: 'hmac', ciphertext: blob },
        400,
        /cannot be imported/,
      ],
      // No `type` is Vault's default aes256-gcm96, for which 16 bytes are the wrong size.
      [
        'POST',
        '/v1/transit/keys/h1/import',
        { ciphertext: wrapForImport(wrap, randomBytes(16)) },
        400,
        /invalid key size 16 bytes for key type aes256-gcm96/,
      ],
      ['POST', '/v1/transit/keys/h1/import_version', { ciphertext: blob }, 400, /no key found/],
      // A miss names what is missing (Vault: the same texts, as a 500), unlike a key read's bare 404.
      [
        'GET',
        '/v1/transit/byok-export/nope/http-aes',
        undefined,
        404,
        /^no such destination key to export to$/,
      ],
      [
        'GET',
        '/v1/transit/byok-export/http-dest/nope',
        undefined,
        404,
        /^no such source key for export$/,
      ],
      ['GET', '/v1/transit/backup/nope', undefined, 404, /^key "nope" not found$/],
      ['GET', '/v1/transit/keys/nope', undefined, 404, null],
      ['GET', '/v1/transit/export/encryption-key/nope', undefined, 404, null],
      ['GET', '/v1/transit/byok-export/http-ec/http-aes', undefined, 400, /must be a rsa key/],
      ['GET', '/v1/transit/byok-export/http-dest/http-ec', undefined, 400, /not exportable/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const r = await call(server, method, path, { body });
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      expect(Array.isArray(r.json.errors), path).toBe(true);
      if (message) expect(r.json.errors[0], path).toMatch(message);
      else expect(r.json.errors).toEqual([]);
    }
    expect((await call(server, 'LIST', '/v1/transit/keys')).json.data.keys).toEqual(before);
  });
});
