/**
 * Two places where the ACL must decide as Vault's does, or it grants what
 * Vault refuses:
 *
 * - A LIST weighs the wildcard rules matching the path without its trailing
 *   slash and those matching it with the slash together: the most specific
 *   `deny` wins unless a rule granting `list` is more specific still (Vault's
 *   fix of the list deny bypass, OpenBao GHSA-xp3c-3jw3-4vcr). Deciding on the
 *   bare path first, as an earlier Vault did, let `transit/*` with list past a
 *   deny on `transit/keys/*` (test/auth/acl-list-deny.test.ts).
 * - A JSON policy naming one key twice in one object is refused:
 *   `JSON.parse` kept the last silently, so a `deny` written first vanished.
 */
import { describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { Acl } from '../../src/auth/acl.js';
import { parsePolicy } from '../../src/auth/policy-hcl.js';
import { isTransitError } from '../../src/errors.js';
import { MemoryStorage, Transit } from '../../src/index.js';

const acl = (...docs: string[]) => Acl.compile(docs.map((d) => parsePolicy(d)));

/** An in-process handler and a token holding `policies` (name → text). */
async function handlerWithPolicy(policies: Record<string, string>) {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const store = new AclPolicyStore({ storage });
  const root = await tokens.createRoot();
  const h = createHandler(
    { transit: new Transit({ storage, autoRotate: false }), tokens, policies: store },
    { logger: { error: () => undefined } },
  );
  for (const [name, text] of Object.entries(policies)) await store.write(name, text);
  const rootCtx = await tokens.authenticate(root);
  if (!rootCtx) throw new Error('no root');
  const made = await tokens.create(rootCtx, { policies: Object.keys(policies), ttl: '1h' });
  const send = async (method: string, url: string, body?: unknown, as = made.client_token) => {
    const r = await h.dispatch({
      method,
      url,
      headers: (n) =>
        n === 'x-vault-token' ? as : n === 'content-type' ? 'application/json' : undefined,
      ...(body === undefined ? {} : { body: async () => JSON.stringify(body) }),
    });
    return r as NonNullable<typeof r>;
  };
  return { send, root };
}

describe('LIST: the rules of the bare and the slash path together, the most specific deny first', () => {
  it.each([
    ['transit/*', 'transit/keys/*'],
    ['transit/ke*', 'transit/keys/*'],
    ['transit/+', 'transit/keys/+'],
  ])('a broader deny %s gives way to list on the more specific %s', (deny, grant) => {
    const a = acl(
      `path "${deny}" { capabilities = ["deny"] }`,
      `path "${grant}" { capabilities = ["read", "list"] }`,
    );
    expect(a.allows('transit/keys', 'list')).toBe(true);
    expect(a.allows('transit/keys/', 'list')).toBe(true);
    expect(a.allows('transit/other', 'list')).toBe(false);
  });

  it.each([
    ['transit/keys*', 'transit/keys/*'],
    ['transit/*', 'transit/keys/*'],
    ['transit/+', 'transit/keys/+'],
  ])('list on %s gives way to a deny on the more specific %s', (grant, deny) => {
    const a = acl(
      `path "${grant}" { capabilities = ["list", "read"] }`,
      `path "${deny}" { capabilities = ["deny"] }`,
    );
    expect(a.allows('transit/keys', 'list')).toBe(false);
    expect(a.allows('transit/keys/', 'list')).toBe(false);
    expect(a.allows('transit/keys/k1', 'read')).toBe(false);
  });

  it('with no rule on the bare path, the rule on path/ decides', () => {
    const a = acl('path "transit/keys/*" { capabilities = ["list"] }');
    expect(a.allows('transit/keys', 'list')).toBe(true);
    expect(a.allows('transit/other', 'list')).toBe(false);
  });

  it('over HTTP: LIST /v1/transit/keys follows the more specific list grant', async () => {
    const { send, root } = await handlerWithPolicy({
      app: `
        path "transit/*" { capabilities = ["deny"] }
        path "transit/keys/*" { capabilities = ["read", "list"] }
      `,
    });
    expect((await send('POST', '/v1/transit/keys/k1', {}, root)).status).toBe(200);
    expect((await send('LIST', '/v1/transit/keys')).status).toBe(200);
    expect((await send('POST', '/v1/transit/encrypt/k1', { plaintext: '' })).status).toBe(403);
  });
});

describe('JSON policies: a key named twice in one object is refused', () => {
  const DUP_PATH =
    '{"path": {"transit/encrypt/secret": {"capabilities": ["deny"]}, "transit/encrypt/secret": {"capabilities": ["update"]}}}';
  const DUP_CAPS =
    '{"path": {"transit/encrypt/secret": {"capabilities": ["deny"], "capabilities": ["update"]}}}';

  it.each([
    ['a path', DUP_PATH],
    ['an attribute', DUP_CAPS],
  ])('%s named twice', (_what, text) => {
    let e: unknown;
    try {
      parsePolicy(text);
    } catch (x) {
      e = x;
    }
    expect(isTransitError(e, 'invalid_request')).toBe(true);
    expect((e as Error).message).toMatch(/failed to parse policy: duplicate key/);
  });

  it('a key repeated with the same value is refused too; keys of different objects are not', () => {
    const text =
      '{"path": {"transit/keys/a": {"capabilities": ["read"]}, "transit/keys/a": {"capabilities": ["read"]}}}';
    expect(() => parsePolicy(text)).toThrow(/duplicate key "transit\/keys\/a"/);
    const ok =
      '{"path": {"a": {"capabilities": ["read"]}, "b": {"capabilities": ["read", "list"]}}}';
    expect(parsePolicy(ok).rules).toHaveLength(2);
    // A key's text may hold quotes, colons and braces.
    const tricky =
      '{"path": {"x\\"}:{": {"capabilities": ["read"]}, "y": {"capabilities": ["list"]}}}';
    expect(parsePolicy(tricky).rules.map((r) => r.path)).toEqual(['x"}:{', 'y']);
    const escaped =
      '{"path": {"a\\u0062": {"capabilities": ["read"]}, "ab": {"capabilities": ["list"]}}}';
    expect(() => parsePolicy(escaped)).toThrow(/duplicate key "ab"/);
  });

  it('over HTTP: writing such a policy is a 400, and nothing is stored', async () => {
    const { send, root } = await handlerWithPolicy({ app: 'path "x" { capabilities = ["read"] }' });
    const r = await send('PUT', '/v1/sys/policies/acl/dup', { policy: DUP_PATH }, root);
    expect(r.status).toBe(400);
    expect(JSON.parse(String(r.body)).errors[0]).toMatch(/duplicate key/);
    expect((await send('GET', '/v1/sys/policies/acl/dup', undefined, root)).status).toBe(404);
  });
});

describe("a rule's leading slash", () => {
  it('one is dropped, as Vault; a second stays, and matches no request', () => {
    expect(parsePolicy('path "/transit/keys/x" { capabilities = ["read"] }').rules[0]?.path).toBe(
      'transit/keys/x',
    );
    const a = acl('path "//transit/keys/x" { capabilities = ["read"] }');
    expect(a.allows('transit/keys/x', 'read')).toBe(false);
  });
});
