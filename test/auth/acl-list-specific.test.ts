/**
 * A LIST is decided by the most specific rule among those matching the listed
 * path with and without its slash (src/auth/acl.ts #listWild): a less specific
 * rule that grants `list` must not win over a more specific one that grants
 * other capabilities only (`transit/keys*` ["read"] beside `transit/*`
 * ["list"]: LIST transit/keys is denied, as in Vault). A first version of the
 * list-deny fix let the broader list grant win.
 */
import { describe, expect, it } from 'vitest';
import { Acl } from '../../src/auth/acl.js';
import { parsePolicy } from '../../src/auth/policy-hcl.js';

describe('LIST: a more specific non-list rule is not overridden by a broader list grant', () => {
  it('transit/* list + transit/keys* read: LIST transit/keys is denied', () => {
    const acl = Acl.compile([
      parsePolicy(`
path "transit/*" { capabilities = ["read", "list", "update"] }
path "transit/keys*" { capabilities = ["read"] }
`),
    ]);
    // Sanity: the narrower rule decides a read of a key.
    expect(acl.allows('transit/keys/k', 'update')).toBe(false);
    expect(acl.allows('transit/keys', 'list')).toBe(false);
    expect(acl.allows('transit/keys/', 'list')).toBe(false);
  });
});
