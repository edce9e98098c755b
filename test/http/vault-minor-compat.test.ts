/**
 * Small divergences from Vault's HTTP shapes:
 *
 * 1. `GET …?list=<not a Go bool>`: Vault's `buildLogicalPath` answers 400
 *    `{"errors":[]}` (strconv.ParseBool fails); transitkit treated it as a
 *    plain GET and answered 405 `unsupported operation`.
 * 2. Read of a `type: hmac` key: Vault's `formatKeyPolicy` has no `keys`
 *    field for hmac keys (reference §4 and §9: "hmac: no `keys` field");
 *    transitkit returned a `keys` map of creation times (the
 *    library's `KeyInfo` keeps it; the HTTP body leaves it out).
 * 3. `POST transit/hmac/:name` without `input` (and without `batch_input`):
 *    Vault's pathHMACWrite uses the empty string ("use empty string if input
 *    is missing - not an error") and answers 200 with the HMAC of "", as
 *    transitkit's own sign does for `{}`; transitkit's hmac answered 400
 *    `missing input for HMAC` (Vault's text for a batch item only).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type TransitHandler } from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';

let handler: TransitHandler;

beforeAll(async () => {
  const transit = new Transit({ autoRotate: false });
  handler = createHandler({ transit }, { auth: false, logger: { error: () => undefined } });
  await transit.createKey('k');
  await transit.createKey('mac', { type: 'hmac', key_size: 32 });
});

async function get(path: string) {
  const r = await handler.fetch(new Request(`http://vault.test/v1${path}`));
  const text = await r.text();
  return { status: r.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

describe('minor Vault HTTP shape divergences', () => {
  it('GET transit/keys?list=maybe is 400 {"errors":[]} (Vault: ParseBool fails)', async () => {
    const r = await get('/transit/keys?list=maybe');
    expect(r.status, r.text).toBe(400);
    expect(r.json).toEqual({ errors: [] });
  });

  it('hmac without input is the HMAC of the empty input, as sign does', async () => {
    const r = await handler.fetch(
      new Request('http://vault.test/v1/transit/hmac/k', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    const text = await r.text();
    expect(r.status, text).toBe(200);
    const empty = await handler.fetch(
      new Request('http://vault.test/v1/transit/hmac/k', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: '' }),
      }),
    );
    expect(JSON.parse(text).data.hmac).toBe((await empty.json()).data.hmac);
  });

  it('reading an hmac key has no `keys` field (Vault formatKeyPolicy)', async () => {
    const r = await get('/transit/keys/mac');
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.key_size).toBe(32);
    expect(r.json.data).not.toHaveProperty('keys');
  });
});
