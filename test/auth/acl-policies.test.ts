/** The ACL policy store: built-in root and default, writes, deletes, compiled ACLs. */
import { describe, expect, it } from 'vitest';
import { AclPolicyStore } from '../../src/auth/acl-policies.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { code } from './token-helpers.js';

describe('AclPolicyStore', () => {
  it('writes, reads, lists and deletes; root and default are built in', async () => {
    const p = new AclPolicyStore({ storage: new MemoryStorage() });
    expect(await p.list()).toEqual(['default', 'root']);
    expect((await p.read('default'))?.policy).toContain('auth/token/lookup-self');
    await p.write('App', 'path "a" { capabilities = ["read"] }');
    expect(await p.read('app')).toEqual({
      name: 'app',
      policy: 'path "a" { capabilities = ["read"] }',
    });
    expect(await p.list()).toEqual(['app', 'default', 'root']);
    await p.delete('app');
    expect(await p.read('app')).toBeUndefined();
    expect(await code(p.write('root', 'path "a" { capabilities = ["read"] }'))).toBe(
      'invalid_request',
    );
    expect(await code(p.delete('default'))).toBe('invalid_request');
    expect(await code(p.write('bad/name', 'path "a" { capabilities = ["read"] }'))).toBe(
      'invalid_request',
    );
    expect(await code(p.write('x', ''))).toBe('invalid_request');
  });

  it('compiled ACLs follow writes and deletes', async () => {
    const p = new AclPolicyStore({ storage: new MemoryStorage() });
    await p.write('x', 'path "a" { capabilities = ["read"] }');
    expect((await p.acl(['x'])).allows('a', 'read')).toBe(true);
    await p.write('x', 'path "a" { capabilities = ["deny"] }');
    expect((await p.acl(['x'])).allows('a', 'read')).toBe(false);
    await p.delete('x');
    expect((await p.acl(['x', 'missing'])).allows('a', 'read')).toBe(false);
    expect((await p.acl(['root'])).allows('a', 'delete', true)).toBe(true);
  });
});
