/**
 * `sys/init` and `sys/unseal` bodies are decoded as Vault decodes them: into
 * Go structs with encoding/json (`InitRequest`, `UnsealRequest`), not with
 * the framework's weak conversions. A wrong JSON type (`secret_shares: "3"`,
 * `reset: "true"`, `key: 5`, `pgp_keys: "abc"`) is a 400 with Go's text,
 * prefixed as Vault's `parseJSONRequest` prefixes it, and changes nothing;
 * `null` is absent (Go leaves the zero value); the right types work as before.
 * And a field's name matches in any case (`"Secret_Shares"`, `"KEY"`, the Kelvin
 * sign for k), as encoding/json matches struct fields; a later key wins.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { createServer, type TransitkitServer } from '../../adapters/http/node-server.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { call } from './helpers.js';

const servers: TransitkitServer[] = [];
const nodes: TransitNode[] = [];
afterAll(async () => {
  for (const s of servers) await s.close({ drainMs: 0 });
  for (const n of nodes) await n.close();
});

async function serve(): Promise<{ url: string; root: string }> {
  const node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
  nodes.push(node);
  const server = createServer(createHandler(node));
  servers.push(server);
  const { url } = await server.listen(0, '127.0.0.1');
  return { url, root: '' };
}

const anon = { token: null } as const;
const goError = (kind: string, field: string, type: string) =>
  `failed to parse JSON input: json: cannot unmarshal ${kind} into Go struct field ${field} of type ${type}`;

describe('sys/init: InitRequest JSON types', () => {
  it("refuses wrong JSON types with Go's error, and stays uninitialised", async () => {
    const s = await serve();
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { secret_shares: '3', secret_threshold: 2 },
        goError('string', 'InitRequest.secret_shares', 'int'),
      ],
      [
        { secret_shares: 3, secret_threshold: true },
        goError('bool', 'InitRequest.secret_threshold', 'int'),
      ],
      [
        { secret_shares: 2.5, secret_threshold: 2 },
        goError('number 2.5', 'InitRequest.secret_shares', 'int'),
      ],
      [
        { secret_shares: [3], secret_threshold: 2 },
        goError('array', 'InitRequest.secret_shares', 'int'),
      ],
      [
        { secret_shares: 3, secret_threshold: { n: 2 } },
        goError('object', 'InitRequest.secret_threshold', 'int'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, stored_shares: '1' },
        goError('string', 'InitRequest.stored_shares', 'int'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, recovery_shares: false },
        goError('bool', 'InitRequest.recovery_shares', 'int'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, recovery_threshold: '0' },
        goError('string', 'InitRequest.recovery_threshold', 'int'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, pgp_keys: 'abc' },
        goError('string', 'InitRequest.pgp_keys', '[]string'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, pgp_keys: [1] },
        goError('number', 'InitRequest.pgp_keys', 'string'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, recovery_pgp_keys: 'a,b' },
        goError('string', 'InitRequest.recovery_pgp_keys', '[]string'),
      ],
      [
        { secret_shares: 3, secret_threshold: 2, root_token_pgp_key: 5 },
        goError('number', 'InitRequest.root_token_pgp_key', 'string'),
      ],
    ];
    for (const [body, message] of cases) {
      const r = await call(s, 'PUT', '/v1/sys/init', { ...anon, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json, JSON.stringify(body)).toEqual({ errors: [message] });
    }
    expect((await call(s, 'GET', '/v1/sys/init', anon)).json).toEqual({ initialized: false });
  });

  it('takes the right types as before; null is absent', async () => {
    const s = await serve();
    const init = await call(s, 'PUT', '/v1/sys/init', {
      ...anon,
      body: {
        secret_shares: 3,
        secret_threshold: 2,
        stored_shares: null,
        pgp_keys: null,
        root_token_pgp_key: '',
        recovery_pgp_keys: [],
        recovery_shares: 0,
      },
    });
    expect(init.status, init.text).toBe(200);
    expect(init.json.keys).toHaveLength(3);
  });
});

describe('sys/unseal: UnsealRequest JSON types', () => {
  it("refuses wrong JSON types with Go's error, and the progress is unchanged", async () => {
    const s = await serve();
    const { keys } = (
      await call(s, 'PUT', '/v1/sys/init', {
        ...anon,
        body: { secret_shares: 3, secret_threshold: 2 },
      })
    ).json as { keys: string[] };
    const first = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key: keys[0] } });
    expect(first.json).toMatchObject({ sealed: true, progress: 1 });

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ reset: 'true' }, goError('string', 'UnsealRequest.Reset', 'bool')],
      [{ reset: 1 }, goError('number', 'UnsealRequest.Reset', 'bool')],
      [{ key: keys[1], reset: 'false' }, goError('string', 'UnsealRequest.Reset', 'bool')],
      [{ key: 5 }, goError('number', 'UnsealRequest.Key', 'string')],
      [{ key: [keys[1]] }, goError('array', 'UnsealRequest.Key', 'string')],
      [{ key: keys[1], migrate: 'false' }, goError('string', 'UnsealRequest.Migrate', 'bool')],
    ];
    for (const [body, message] of cases) {
      const r = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json, JSON.stringify(body)).toEqual({ errors: [message] });
    }
    // Neither a reset nor a share was taken.
    expect((await call(s, 'GET', '/v1/sys/seal-status', anon)).json).toMatchObject({
      sealed: true,
      progress: 1,
    });

    // The right types, as before: reset (null is absent), then the threshold.
    const reset = await call(s, 'PUT', '/v1/sys/unseal', {
      ...anon,
      body: { reset: true, key: null },
    });
    expect(reset.json).toMatchObject({ sealed: true, progress: 0 });
    await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { key: keys[1], migrate: false } });
    const done = await call(s, 'PUT', '/v1/sys/unseal', {
      ...anon,
      body: { key: keys[2], reset: false, migrate: null },
    });
    expect(done.json).toMatchObject({ sealed: false, progress: 0 });
  });
});

describe('field names in any case, as encoding/json', () => {
  it('sys/init and sys/unseal take Secret_Shares, KEY, Reset; the last key for a field wins', async () => {
    const s = await serve();
    const init = await call(s, 'PUT', '/v1/sys/init', {
      ...anon,
      body: { SECRET_SHARES: 2, Secret_Threshold: 3, secret_threshold: 2 },
    });
    expect(init.status, init.text).toBe(200);
    expect(init.json.keys).toHaveLength(2);
    const keys = init.json.keys as string[];
    // Go's type errors name the struct field, whatever the key's case.
    const wrong = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { RESET: 'yes' } });
    expect(wrong.json).toEqual({ errors: [goError('string', 'UnsealRequest.Reset', 'bool')] });
    const first = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { KEY: keys[0] } });
    expect(first.json).toMatchObject({ sealed: true, progress: 1 });
    const reset = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { Reset: true } });
    expect(reset.json).toMatchObject({ sealed: true, progress: 0 });
    // U+212A (Kelvin sign) folds to K in Go, so "\u212aey" is the key field.
    await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { '\u212aey': keys[0] } });
    // Not a fold: a dotless ı is not i, and "keys" is another name (ignored).
    const other = await call(s, 'PUT', '/v1/sys/unseal', {
      ...anon,
      body: { keys: keys[1], 'ke\u0131': keys[1] },
    });
    expect(other.status).toBe(400);
    const done = await call(s, 'PUT', '/v1/sys/unseal', { ...anon, body: { Key: keys[1] } });
    expect(done.json).toMatchObject({ sealed: false, progress: 0 });
  });
});
