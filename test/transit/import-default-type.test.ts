/**
 * `POST transit/keys/:name/import` without `type`: Vault and OpenBao default
 * it to `aes256-gcm96` (path_import.go, field `type` `Default: "aes256-gcm96"`;
 * reference §7 "fields: `type` (default aes256-gcm96, case-insensitive)").
 * A Vault client importing an AES-256 key the way Vault's docs allow
 * (`vault write transit/keys/k/import ciphertext=…`) got 400
 * `missing 'type' of the imported key` from transitkit.
 *
 * Note: spec/transit-service.md's import table says `type` is "required";
 * it disagrees with Vault here (the reference says the source wins).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type TransitHandler } from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';
import { wrapForImport } from './import-support.js';

let handler: TransitHandler;
let transit: Transit;

beforeAll(() => {
  transit = new Transit({ autoRotate: false });
  handler = createHandler({ transit }, { auth: false, logger: { error: () => undefined } });
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

describe('import without type (Vault default aes256-gcm96)', () => {
  it('imports a 32-byte key as aes256-gcm96', async () => {
    const pem = (await req('GET', '/transit/wrapping_key')).json.data.public_key as string;
    const material = randomBytes(32);
    const ciphertext = wrapForImport(pem, material);
    const r = await req('POST', '/transit/keys/imp/import', { ciphertext });
    expect(r.status, r.text).toBe(204);
    const read = await req('GET', '/transit/keys/imp');
    expect(read.json.data.type).toBe('aes256-gcm96');
    expect(read.json.data.imported_key).toBe(true);
  });
});
