/**
 * Policy documents (HCL subset and JSON) and Vault's ACL evaluation: exact over
 * wildcard, the priority rules among `*` and `+` patterns, deny wins within a
 * pattern, default deny, list paths, sudo, root; the spec's SHA-1 deny.
 */
import { describe, expect, it } from 'vitest';
import { Acl } from '../../src/auth/acl.js';
import { parsePolicy } from '../../src/auth/policy-hcl.js';
import { isTransitError } from '../../src/errors.js';

const acl = (...docs: string[]) => Acl.compile(docs.map(parsePolicy));

describe('parsePolicy', () => {
  it('reads the HCL subset with comments, trailing commas and the legacy policy shorthand', () => {
    const p = parsePolicy(`
      # comment
      path "transit/encrypt/*" {
        capabilities = ["create", "update",] // trailing comma
      }
      /* block
         comment */
      path "/transit/keys" { policy = "read" }
      path "secret/x" = { capabilities = ["DENY", "read"] }
    `);
    expect(p.rules).toEqual([
      { path: 'transit/encrypt/*', capabilities: ['create', 'update'] },
      { path: 'transit/keys', capabilities: ['read', 'list'] },
      { path: 'secret/x', capabilities: ['deny'] },
    ]);
  });

  it('reads the JSON form, including a list of path objects', () => {
    expect(parsePolicy('{"path": {"a/*": {"capabilities": ["read"]}}}').rules).toEqual([
      { path: 'a/*', capabilities: ['read'] },
    ]);
    expect(
      parsePolicy('{"path": [{"a": {"policy": "write"}}, {"b": {"capabilities": []}}]}').rules,
    ).toEqual([
      { path: 'a', capabilities: ['create', 'read', 'update', 'delete', 'list'] },
      { path: 'b', capabilities: [] },
    ]);
  });

  it('merges a path named twice', () => {
    expect(
      parsePolicy('path "a" { capabilities = ["read"] }\npath "a" { capabilities = ["list"] }')
        .rules,
    ).toEqual([{ path: 'a', capabilities: ['read', 'list'] }]);
  });

  it.each([
    [
      'path "a" { capabilities = ["read" "list"] }',
      /line 1, column 35: expected ',', found "list"/,
    ],
    [
      'path "a" {\n  capabilities = ["read"]\n',
      /line 3, column 1: expected a name, found end of policy/,
    ],
    ['path a { }', /line 1, column 6: expected a quoted string/],
    ['paths "a" { capabilities = [] }', /line 1, column 1: expected 'path'/],
    ['path "a" {\n\n  capabilities = ["fly"] }', /line 3, column 3: unknown capability "fly"/],
    ['path "a" { allowed_parameters = "x" }', /unsupported attribute "allowed_parameters"/],
    ['path "a" { }', /a path block needs capabilities/],
    ['path "a" { capabilities = "read" }', /capabilities must be a list/],
    ['path "a { }', /unterminated string/],
    ['path "a" { capabilities = ["read"] } $', /unexpected character "\$"/],
    ['{"path": {"a": {"capabilities": "read"}}}', /capabilities must be a list/],
    ['{"path": {"a": 1}}', /must be an object/],
    ['{"paths": {}}', /unsupported key "paths"/],
    ['{"path": ', /failed to parse policy/],
    [
      'path "transit/+*" { capabilities = ["read"] }',
      /^failed to parse policy: path "transit\/\+\*": invalid use of wildcards \('\+\*' is forbidden\)$/,
    ],
    ['{"path": {"a/+*/b": {"capabilities": ["read"]}}}', /invalid use of wildcards/],
    ['   ', /empty/],
  ])('%j → invalid_request %s', (text, message) => {
    try {
      parsePolicy(text);
      expect.unreachable();
    } catch (e) {
      expect(isTransitError(e, 'invalid_request')).toBe(true);
      expect((e as Error).message).toMatch(message);
    }
  });
});

describe('Acl', () => {
  it('denies by default and allows only the named capability', () => {
    const a = acl('path "transit/encrypt/k" { capabilities = ["update"] }');
    expect(a.allows('transit/encrypt/k', 'update')).toBe(true);
    expect(a.allows('transit/encrypt/k', 'create')).toBe(false);
    expect(a.allows('transit/encrypt/k2', 'update')).toBe(false);
    expect(a.allows('transit/decrypt/k', 'update')).toBe(false);
  });

  it('a * glob is a plain string prefix; + is exactly one segment', () => {
    const a = acl(
      'path "transit/keys*" { capabilities = ["read"] }',
      'path "transit/+/k" { capabilities = ["update"] }',
    );
    expect(a.allows('transit/keys', 'read')).toBe(true);
    expect(a.allows('transit/keysabc/x/y', 'read')).toBe(true);
    expect(a.allows('transit/key', 'read')).toBe(false);
    expect(a.allows('transit/encrypt/k', 'update')).toBe(true);
    expect(a.allows('transit/encrypt/k/x', 'update')).toBe(false);
    expect(a.allows('transit/k', 'update')).toBe(false);
    const b = acl('path "transit/*" { capabilities = ["read"] }');
    expect(b.allows('transit', 'read')).toBe(false);
    expect(b.allows('transit/', 'read')).toBe(true);
  });

  it("the spec's SHA-1 deny beats a broader grant", () => {
    const a = acl(
      'path "transit/*" { capabilities = ["create", "update"] }',
      'path "transit/sign/+/sha1" { capabilities = ["deny"] }\npath "transit/verify/+/sha1" { capabilities = ["deny"] }',
    );
    expect(a.allows('transit/sign/k/sha2-256', 'update')).toBe(true);
    expect(a.allows('transit/sign/k', 'update')).toBe(true);
    expect(a.allows('transit/sign/k/sha1', 'update')).toBe(false);
    expect(a.allows('transit/verify/k/sha1', 'update')).toBe(false);
    expect(a.capabilities('transit/sign/k/sha1')).toEqual(new Set(['deny']));
  });

  it('as in Vault, a glob whose wildcard comes later outranks the + deny', () => {
    const a = acl(
      'path "transit/sign/k/*" { capabilities = ["update"] }',
      'path "transit/sign/+/sha1" { capabilities = ["deny"] }',
    );
    expect(a.allows('transit/sign/k/sha1', 'update')).toBe(true);
    expect(a.allows('transit/sign/j/sha1', 'update')).toBe(false);
  });

  it('exact beats any wildcard, even a deny', () => {
    const a = acl(
      'path "transit/*" { capabilities = ["deny"] }',
      'path "transit/keys/k" { capabilities = ["read"] }',
    );
    expect(a.allows('transit/keys/k', 'read')).toBe(true);
    expect(a.allows('transit/keys/j', 'read')).toBe(false);
  });

  it("Vault's priority rules among wildcard patterns", () => {
    // 1. the first wildcard later wins
    expect(
      acl(
        'path "a/+/c/d" { capabilities = ["read"] }',
        'path "a/b/+/d" { capabilities = ["deny"] }',
      ).allows('a/b/c/d', 'read'),
    ).toBe(false);
    // 2. no trailing * wins over a trailing *
    expect(
      acl(
        'path "a/b/+" { capabilities = ["read"] }',
        'path "a/b/*" { capabilities = ["deny"] }',
      ).allows('a/b/c', 'read'),
    ).toBe(true);
    // 3. fewer + wins
    expect(
      acl(
        'path "a/+/+/d*" { capabilities = ["deny"] }',
        'path "a/+/c/d*" { capabilities = ["read"] }',
      ).allows('a/b/c/d', 'read'),
    ).toBe(true);
    // 4. longer wins
    expect(
      acl(
        'path "a/b*" { capabilities = ["deny"] }',
        'path "a/b/c*" { capabilities = ["read"] }',
      ).allows('a/b/c/d', 'read'),
    ).toBe(true);
    // 5. lexically greater wins
    expect(
      acl(
        'path "a/+/x*" { capabilities = ["deny"] }',
        'path "a/+/y*" { capabilities = ["read"] }',
      ).capabilities('a/b/x'),
    ).toEqual(new Set(['deny']));
  });

  it('the same pattern in two policies is merged, and deny in either wins', () => {
    const a = acl(
      'path "k/*" { capabilities = ["read"] }',
      'path "k/*" { capabilities = ["update"] }',
    );
    expect(a.allows('k/x', 'read') && a.allows('k/x', 'update')).toBe(true);
    const d = acl(
      'path "k/*" { capabilities = ["read"] }',
      'path "k/*" { capabilities = ["deny"] }',
    );
    expect(d.allows('k/x', 'read')).toBe(false);
  });

  it('list checks the path with a trailing slash, and an exact rule on the bare path', () => {
    expect(
      acl('path "transit/keys" { capabilities = ["list"] }').allows('transit/keys', 'list'),
    ).toBe(true);
    expect(
      acl('path "transit/keys/" { capabilities = ["list"] }').allows('transit/keys', 'list'),
    ).toBe(true);
    expect(
      acl('path "transit/keys/*" { capabilities = ["list"] }').allows('transit/keys', 'list'),
    ).toBe(true);
    expect(
      acl('path "transit/keys/*" { capabilities = ["list"] }').allows('transit/keys', 'read'),
    ).toBe(false);
  });

  it('sudo is required where asked; root allows everything', () => {
    const a = acl(
      'path "sys/leases/*" { capabilities = ["list"] }',
      'path "sys/leases/lookup/*" { capabilities = ["list", "sudo"] }',
    );
    expect(a.allows('sys/leases/x', 'list', true)).toBe(false);
    expect(a.allows('sys/leases/lookup/x', 'list', true)).toBe(true);
    const root = Acl.compile([], { root: true });
    expect(root.isRoot).toBe(true);
    expect(root.allows('anything/at/all', 'delete', true)).toBe(true);
  });
});
