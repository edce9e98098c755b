/**
 * The pre-body ACL check (adapters/http/preauth.ts) never refuses a token
 * that some completion of the path would let through, and refuses the ones
 * no completion lets through: compared, for many policies, with a brute-force
 * search over every segment the policies name plus arbitrary ones.
 */
import { describe, expect, it } from 'vitest';
import { AclPolicyStore } from '../../adapters/http/index.js';
import { authorizeSomeCompletion } from '../../adapters/http/preauth.js';
import type { Route, Services } from '../../adapters/http/route.js';
import { ROUTES } from '../../adapters/http/routes.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const hash = ROUTES.find((r) => r.path === '/transit/hash(/:algorithm)') as Route;

/** Policies, each with whether a `transit/hash` request may be allowed at all. */
const CASES: [string, boolean][] = [
  ['path "transit/hash" { capabilities = ["update"] }', true],
  ['path "transit/hash/sha2-256" { capabilities = ["update"] }', true],
  ['path "transit/hash/+" { capabilities = ["update"] }', true],
  ['path "transit/hash/sha3*" { capabilities = ["update"] }', true],
  ['path "transit/has*" { capabilities = ["update"] }', true],
  ['path "transit/+/sha2-512" { capabilities = ["update"] }', true],
  ['path "transit/*" { capabilities = ["update"] }', true],
  ['path "+/hash/+" { capabilities = ["update"] }', true],
  ['path "transit/hash/*" { capabilities = ["read"] }', false],
  ['path "transit/hash/sha2-256/x" { capabilities = ["update"] }', false],
  ['path "transit/encrypt/*" { capabilities = ["update"] }', false],
  ['path "transit/hash/x" { capabilities = ["deny"] }', false],
  [
    'path "transit/hash/*" { capabilities = ["update"] }\npath "transit/hash/+" { capabilities = ["deny"] }',
    false,
  ],
  [
    'path "transit/*" { capabilities = ["update"] }\npath "transit/hash*" { capabilities = ["deny"] }',
    false,
  ],
  [
    'path "transit/hash/*" { capabilities = ["deny"] }\npath "transit/hash/sha2-256" { capabilities = ["update"] }',
    true,
  ],
  [
    'path "transit/hash/sha*" { capabilities = ["deny"] }\npath "transit/hash/s*" { capabilities = ["update"] }',
    true,
  ],
  [
    'path "transit/hash/s*" { capabilities = ["deny"] }\npath "transit/hash/sha*" { capabilities = ["update"] }',
    true,
  ],
  [
    'path "transit/hash/+" { capabilities = ["update"] }\npath "transit/hash/*" { capabilities = ["deny"] }',
    true,
  ],
];

async function check(policy: string): Promise<{ pre: boolean; brute: boolean }> {
  const storage = new MemoryStorage();
  const policies = new AclPolicyStore({ storage });
  await policies.write('p', policy);
  const services = { policies } as unknown as Services;
  const token = { policies: ['p'] } as never;
  const pre = await authorizeSomeCompletion(services, hash, 'transit/hash', token).then(
    () => true,
    () => false,
  );
  const acl = await policies.acl(['p']);
  const names = ['sha2-256', 'sha2-512', 'sha3-256', 's', 'sha', 'x', 'zzz', 'hash'];
  const brute =
    acl.allows('transit/hash', 'update') ||
    names.some((x) => acl.allows(`transit/hash/${x}`, 'update'));
  return { pre, brute };
}

describe('pre-body check vs brute force', () => {
  it.each(CASES)('%s → may allow: %s', async (policy, expected) => {
    const { pre, brute } = await check(policy);
    expect(brute).toBe(expected);
    expect(pre).toBe(expected);
  });

  it('a token without policies store or a root token', async () => {
    const storage = new MemoryStorage();
    const policies = new AclPolicyStore({ storage });
    const root = { policies: ['root'] } as never;
    await expect(
      authorizeSomeCompletion({ policies } as unknown as Services, hash, 'transit/hash', root),
    ).resolves.toBeUndefined();
    await expect(
      authorizeSomeCompletion({} as unknown as Services, hash, 'transit/hash', root),
    ).rejects.toThrow('permission denied');
    const dflt = { policies: ['default'] } as never;
    await expect(
      authorizeSomeCompletion({ policies } as unknown as Services, hash, 'transit/hash', dflt),
    ).rejects.toThrow('permission denied');
  });
});
