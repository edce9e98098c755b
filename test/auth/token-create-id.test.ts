/**
 * A token id the caller chooses (Vault's `id` on `auth/token/create`, as
 * `vault token create -id`): root or sudo only, Vault's form rules, never a
 * second token with one id, never the root token's, and one token when two
 * instances choose one id at once.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { setup } from './token-helpers.js';

describe('create with a chosen id', () => {
  it("a chosen id (Vault's `id`): root or sudo only, Vault's form rules, never a second token with it", async () => {
    const { tokens, ctx } = await setup();
    const made = await tokens.create(ctx, { id: 'dev-token-1', policies: ['a'] });
    expect(made.client_token).toBe('dev-token-1');
    const dctx = (await tokens.authenticate('dev-token-1')) as TokenContext;
    expect(dctx.policies).toEqual(['a', 'default']);
    expect((await tokens.lookupSelf(dctx)).id).toBe('dev-token-1');
    // Not from a token without sudo: Vault's text, before the id's form is looked at.
    await expect(tokens.create(dctx, { id: 'hvs.x', policies: ['a'] })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'root or sudo privileges required to specify token id',
    });
    // With sudo on the path (the HTTP layer's ACL decides), a non-root parent may.
    const sudoMade = await tokens.create(
      dctx,
      { id: 'chosen-by-sudo', policies: ['a'] },
      { sudo: true },
    );
    expect(sudoMade.client_token).toBe('chosen-by-sudo');
    for (const [id, message] of [
      ['hvs.abc', "custom token ID cannot have the 'hvs.' prefix"],
      ['s.abc', "custom token ID cannot have the 's.' prefix"],
      ['a.b', "custom token ID cannot have a '.' in the value"],
      ['with space', 'a token id must be 1-512 printable ASCII characters'],
      ['x'.repeat(513), 'a token id must be 1-512 printable ASCII characters'],
      ['dev-token-1', 'cannot create a token with a duplicate ID'],
    ]) {
      await expect(tokens.create(ctx, { id, policies: ['b'] }), id).rejects.toMatchObject({
        code: 'invalid_request',
        message,
      });
    }
    await expect(tokens.create(ctx, { id: 7 } as never)).rejects.toMatchObject({
      message: "'id' must be a string",
    });
    // The refused duplicate changed nothing: the first token keeps its policies.
    expect(((await tokens.authenticate('dev-token-1')) as TokenContext).policies).toEqual([
      'a',
      'default',
    ]);
  });

  it('a chosen id can never replace the root token', async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot({ id: 'root' });
    const rctx = (await tokens.authenticate(root)) as TokenContext;
    await expect(tokens.create(rctx, { id: 'root', policies: ['a'] })).rejects.toMatchObject({
      message: 'cannot create a token with a duplicate ID',
    });
    expect(((await tokens.authenticate('root')) as TokenContext).isRoot).toBe(true);
  });

  it('two instances choosing one id at once: one token, one refusal, no lease left behind', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const leasesA = new LeaseManager({ storage, clock });
    const leasesB = new LeaseManager({ storage, clock });
    const a = new TokenStore({ storage, clock, leases: leasesA });
    const b = new TokenStore({ storage, clock, leases: leasesB });
    const root = await a.createRoot();
    const actxA = (await a.authenticate(root)) as TokenContext;
    const actxB = (await b.authenticate(root)) as TokenContext;
    const results = await Promise.allSettled([
      a.create(actxA, { id: 'raced', policies: ['x'], ttl: '1h' }),
      b.create(actxB, { id: 'raced', policies: ['y'], ttl: '1h' }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({
      message: 'cannot create a token with a duplicate ID',
    });
    const policies = ((await a.authenticate('raced')) as TokenContext).policies;
    expect([
      ['default', 'x'],
      ['default', 'y'],
    ]).toContainEqual([...policies].sort());
    await leasesA.idle();
    await leasesB.idle();
    // One token lease: the loser's lease was revoked with its refusal.
    expect((await leasesA.list('auth/token/create')).keys).toHaveLength(1);
  });
});
