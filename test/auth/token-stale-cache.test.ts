/**
 * Two token stores on one storage whose change feed lags: what B holds in its
 * cache (up to its 1 s bound) may predate a change A made. A stale copy may
 * refuse one request, but it must never write or revoke: B revoked a token A
 * had just renewed (its cached copy said it had expired), and cut a child it
 * renewed to its parent's expiry from before A renewed the parent.
 */
import { expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { SlowFeed } from '../helpers/slow-feed.js';

const tick = () => new Promise((r) => setTimeout(r, 0));

async function twoStores() {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const a = new TokenStore({ storage, clock });
  const feed = new SlowFeed(storage);
  const b = new TokenStore({ storage: feed, clock });
  await tick(); // B's watch goes live
  feed.flush();
  const root = await a.authenticate(await a.createRoot());
  if (!root) throw new Error('no root');
  return { a, b, feed, clock, root };
}

it('a stale cached entry on B does not revoke a token A just renewed', async () => {
  const { a, b, feed, clock, root } = await twoStores();
  const token = (await a.create(root, { policies: ['app'], ttl: '10s' })).client_token;
  clock.advance(9_500);
  expect(await b.authenticate(token)).toBeDefined(); // B caches the entry (expires at +10 s)
  clock.advance(100);
  await a.renew(token, '1h'); // B's notification has not arrived yet
  clock.advance(600); // past the old expiry; B's copy is 0.7 s old
  // Storage says the token lives: B serves it.
  expect(await b.authenticate(token)).toBeDefined();
  feed.flush();
  expect(await a.authenticate(token)).toBeDefined();
  expect((await a.lookup(root, token)).ttl).toBeGreaterThan(3000);
  // One that has expired in storage too is still revoked by B.
  clock.advance(3_600_000);
  expect(await b.authenticate(token)).toBeUndefined();
  expect(await a.authenticate(token)).toBeUndefined();
  await a.close();
  await b.close();
});

it("renewing a child on B does not cut it to its parent's expiry from before A renewed it", async () => {
  const { a, b, feed, clock, root } = await twoStores();
  const parent = await a.create(root, { policies: ['app'], ttl: '20s' });
  clock.advance(9_000);
  expect(await b.authenticate(parent.client_token)).toBeDefined(); // B caches the parent (+20 s)
  await a.renew(parent.client_token, '1h');
  const pctx = await a.authenticate(parent.client_token);
  if (!pctx) throw new Error('no parent');
  const child = await a.create(pctx, { policies: ['app'], ttl: '30m' });
  expect(child.lease_duration).toBe(1800);
  clock.advance(100);
  const renewed = await b.renew(child.client_token, '30m'); // notification not arrived yet
  feed.flush();
  expect(renewed.lease_duration).toBeGreaterThan(1700);
  expect((await a.lookup(root, child.client_token)).ttl).toBeGreaterThan(1700);
  await a.close();
  await b.close();
});
