/**
 * Tokens and many instances / failing storage (issue #15, items 1, 2, 9):
 *
 * - a revocation through one store is enforced by another on the same storage
 *   at its next check (the storage's change feed drops the other's cached entry);
 * - an unreadable or damaged token entry never authenticates, and the failure
 *   is not remembered: the salt and the entries are read again once storage
 *   recovers (a cached entry is used for at most a second without a read: the
 *   test moves the clock past that);
 * - a token cannot carry a policy name that can never be written (a comma,
 *   whitespace): it would be ambiguous in logs and caches.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { isTransitError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { FlakyStorage } from './flaky-storage.js';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('tokens across instances', () => {
  it('a token revoked through A is refused by B at its next use', async () => {
    const storage = new MemoryStorage();
    const a = new TokenStore({ storage });
    const b = new TokenStore({ storage });
    const ctx = (await a.authenticate(await a.createRoot())) as TokenContext;
    const t = (await a.create(ctx, { policies: ['app'] })).client_token;
    expect(await b.authenticate(t)).toBeDefined();
    await a.revoke(t);
    expect(await b.authenticate(t)).toBeUndefined();
  });
});

describe('fail closed', () => {
  it('a salt that failed to load is loaded again, not remembered as failed', async () => {
    const storage = new FlakyStorage();
    const first = new TokenStore({ storage: storage.inner });
    const root = await first.createRoot();
    storage.failing.add('auth/token/salt');
    const tokens = new TokenStore({ storage });
    expect(await rejection(tokens.authenticate(root))).toBeInstanceOf(Error);
    storage.failing.clear();
    expect((await tokens.authenticate(root))?.isRoot).toBe(true);
  });

  it('an unreadable token entry never authenticates; it is read again once readable', async () => {
    const storage = new FlakyStorage();
    const clock = new FakeClock();
    const tokens = new TokenStore({ storage, clock });
    const root = await tokens.createRoot();
    expect(await tokens.authenticate(root)).toBeDefined();
    storage.failing.add('auth/token/id/');
    clock.advance(1_000); // past the cache's re-read age: the entry must be read
    const e = await rejection(tokens.authenticate(root));
    expect(e).toBeInstanceOf(Error);
    expect(String((e as Error).message)).not.toContain(root);
    storage.failing.clear();
    expect(await tokens.authenticate(root)).toBeDefined();
  });

  it('a damaged token entry fails as internal, never as a token', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const [id] = await storage.list('auth/token/id/');
    await storage.put(`auth/token/id/${id}`, new TextEncoder().encode('{"policies":["root"'));
    const e = await rejection(tokens.authenticate(root));
    expect(isTransitError(e, 'internal')).toBe(true);
    expect(String((e as Error).message)).not.toContain(root);
    expect(String((e as Error).message)).not.toContain(id);
  });
});

describe('policy names on tokens', () => {
  it.each([[['enc-a,wild']], [['a b']], [['tab\there']], [['ok', 'new\nline']]])(
    'refuses the token policies %j',
    async (policies) => {
      const tokens = new TokenStore({ storage: new MemoryStorage() });
      const ctx = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
      const e = await rejection(tokens.create(ctx, { policies }));
      expect(isTransitError(e, 'invalid_request')).toBe(true);
    },
  );

  it('still splits a comma-separated string and lowercases, as Vault', async () => {
    const tokens = new TokenStore({ storage: new MemoryStorage() });
    const ctx = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    expect((await tokens.create(ctx, { policies: 'Enc-A, wild' })).policies).toEqual([
      'default',
      'enc-a',
      'wild',
    ]);
  });
});
