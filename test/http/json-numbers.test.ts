/**
 * JSON numbers as Vault reads them (src/util/json-number.ts), over real HTTP: Vault
 * decodes bodies with `UseNumber`, so a number reaches each field as its
 * literal text. `3.0` and `1e3` are no ints (`sys/init`'s encoding/json and
 * the framework's weak decoding both refuse them), a string field keeps
 * `1.50` as `"1.50"`, and a duration `1e3` gets the refusal the text `"1e3"` gets. Bodies
 * whose numbers JavaScript carries as written (`3`, `1.5`) decode as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { call } from './helpers.js';

let server: TransitkitServer;
let node: TransitNode;
let s: { url: string; root: string };

beforeAll(async () => {
  node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
  server = createServer(createHandler(node));
  const { url } = await server.listen(0, '127.0.0.1');
  s = { url, root: '' };
});
afterAll(async () => {
  await server.close({ drainMs: 0 });
  await node.close();
});

const anon = { token: null } as const;
const errorOf = (r: { json: { errors?: string[] } }) => r.json?.errors?.[0] ?? '';
const goError = (kind: string, field: string) =>
  `failed to parse JSON input: json: cannot unmarshal ${kind} into Go struct field ${field} of type int`;

describe('sys/init (encoding/json into int)', () => {
  it("refuses 3.0, 1e3 and an int64 overflow with the literal in Go's text; -0 is 0", async () => {
    for (const [body, error] of [
      [
        '{"secret_shares": 3.0, "secret_threshold": 2}',
        goError('number 3.0', 'InitRequest.secret_shares'),
      ],
      [
        '{"secret_shares": 3, "secret_threshold": 2E0}',
        goError('number 2E0', 'InitRequest.secret_threshold'),
      ],
      [
        '{"secret_shares": 1e3, "secret_threshold": 2}',
        goError('number 1e3', 'InitRequest.secret_shares'),
      ],
      [
        '{"secret_shares": 3, "secret_threshold": 2, "stored_shares": 9223372036854775808}',
        goError('number 9223372036854775808', 'InitRequest.stored_shares'),
      ],
    ] as const) {
      const r = await call(s, 'POST', '/v1/sys/init', { ...anon, body });
      expect(r.status, body).toBe(400);
      expect(errorOf(r), body).toBe(error);
    }
    expect((await call(s, 'GET', '/v1/sys/init', anon)).json).toEqual({ initialized: false });
    // An int64 past 2^53 is an int to Go (and then past the share limit here).
    const big = await call(s, 'POST', '/v1/sys/init', {
      ...anon,
      body: '{"secret_shares": 9223372036854775807, "secret_threshold": 2}',
    });
    expect(big.status, big.text).toBe(400);
    expect(errorOf(big)).not.toContain('json: cannot unmarshal');
    const ok = await call(s, 'POST', '/v1/sys/init', {
      ...anon,
      body: '{"secret_shares": 1, "secret_threshold": 1, "stored_shares": -0}',
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.keys).toHaveLength(1);
    s.root = ok.json.root_token;
    const unsealed = await call(s, 'POST', '/v1/sys/unseal', {
      ...anon,
      body: { key: ok.json.keys[0] },
    });
    expect(unsealed.json.sealed).toBe(false);
  });
});

describe("the framework's typed fields (json.Number through WeakDecode)", () => {
  it('an int field refuses 1.0 and 1e0, echoing the literal; takes -0 as 0 and 1 as 1', async () => {
    expect((await call(s, 'POST', '/v1/transit/keys/n', { body: {} })).status).toBe(200);
    for (const literal of ['1.0', '1e0', '10E-1', '12345678901234567890']) {
      const r = await call(s, 'POST', '/v1/transit/encrypt/n', {
        body: `{"plaintext": "aGk=", "key_version": ${literal}}`,
      });
      expect(r.status, literal).toBe(400);
      expect(errorOf(r), literal).toContain(
        `error converting input ${literal} for field "key_version"`,
      );
    }
    for (const literal of ['1', '-0']) {
      const r = await call(s, 'POST', '/v1/transit/encrypt/n', {
        body: `{"plaintext": "aGk=", "key_version": ${literal}}`,
      });
      expect(r.status, `${literal}: ${r.text}`).toBe(200);
      expect(r.json.data.key_version).toBe(1);
    }
  });

  it('a bool field refuses 1.0 (ParseBool("1.0")) and takes 1', async () => {
    const bad = await call(s, 'POST', '/v1/transit/keys/b', { body: '{"exportable": 1.0}' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toContain('error converting input 1.0 for field "exportable"');
    const good = await call(s, 'POST', '/v1/transit/keys/b', { body: '{"exportable": 1}' });
    expect(good.status, good.text).toBe(200);
    expect(good.json.data.exportable).toBe(true);
  });

  it('a duration reads the literal: 1e3 and 3.0 get the refusal their text gets; 3600 works', async () => {
    for (const literal of ['1e3', '3.0']) {
      const r = await call(s, 'POST', '/v1/auth/token/create', { body: `{"ttl": ${literal}}` });
      expect(r.status, literal).toBe(400);
      const asText = await call(s, 'POST', '/v1/auth/token/create', { body: { ttl: literal } });
      expect(asText.status).toBe(400);
      expect(errorOf(r), literal).toBe(errorOf(asText));
      expect(errorOf(r)).toContain(literal);
    }
    const ok = await call(s, 'POST', '/v1/auth/token/create', { body: '{"ttl": 3600}' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.auth.lease_duration).toBe(3600);
  });

  it('string fields keep the literal: meta values, policies, a field, in lists and maps alike', async () => {
    const r = await call(s, 'POST', '/v1/auth/token/create', {
      body: '{"meta": {"a": 1.50, "b": 1e3, "c": 12345678901234567890, "d": 2}, "policies": [1.0, 7], "display_name": 1.50}',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.auth.policies).toEqual(['1.0', '7', 'default']);
    expect(r.json.auth.metadata).toEqual({
      a: '1.50',
      b: '1e3',
      c: '12345678901234567890',
      d: '2',
    });
    const me = await call(s, 'GET', '/v1/auth/token/lookup-self', {
      token: r.json.auth.client_token,
    });
    expect(me.json.data.display_name).toBe('token-1-50');
  });

  it('a batch item gets the literal as text: an int field there is refused, not read as 1', async () => {
    const r = await call(s, 'POST', '/v1/transit/encrypt/n', {
      body: '{"batch_input": [{"plaintext": "aGk=", "key_version": 1.0}, {"plaintext": "aGk=", "key_version": 1}]}',
    });
    expect(r.status, r.text).toBe(400);
    const [bad, good] = r.json.data.batch_results;
    expect(bad.error).toMatch(/key_version/);
    expect(good.ciphertext).toMatch(/^vault:v1:/);
  });

  it('a later duplicate key still wins, and __proto__ stays data, in a body that is parsed twice', async () => {
    const r = await call(s, 'POST', '/v1/transit/encrypt/n', {
      body: '{"__proto__": {"x": 1.0}, "key_version": 1.0, "plaintext": "aGk=", "key_version": 1}',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.key_version).toBe(1);
    expect(r.json.warnings).toEqual([
      'Endpoint ignored these unrecognized parameters: [__proto__]',
    ]);
  });
});
