/**
 * The token entries' cache (`src/auth/token-entries.ts`, issue #18): a
 * request costs one hash and no storage read while the storage's change feed
 * is live, and the cache never decides alone:
 *
 * - a revocation through another store on the same storage drops the entry;
 * - a change that overtakes a read in flight leaves nothing cached;
 * - a lost notification is caught within a second (the re-read age);
 * - limited-use tokens, stores without `watch`, and closed stores read
 *   storage on every use.
 */
import { describe, expect, it } from 'vitest';
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import type { ListOptions, StorageAdapter } from '../../src/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { eventually, FlakyStorage } from './flaky-storage.js';

/** Counts reads of token entries; `watch` is offered only when `watched`. */
class CountingStorage implements StorageAdapter {
  reads = 0;
  readonly inner: MemoryStorage;
  /** Notifications are swallowed (lost) while set. */
  deaf = false;
  constructor(inner = new MemoryStorage(), watched = true) {
    this.inner = inner;
    if (watched) {
      (this as unknown as { watch: MemoryStorage['watch'] }).watch = (prefix, onChange) =>
        inner.watch(prefix, (key) => {
          if (!this.deaf) onChange(key);
        });
    }
  }
  get(key: string): Promise<Uint8Array | undefined> {
    if (key.startsWith('auth/token/id/')) this.reads++;
    return this.inner.get(key);
  }
  put(key: string, value: Uint8Array): Promise<void> {
    return this.inner.put(key, value);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  list(prefix: string, options?: ListOptions): Promise<string[]> {
    return this.inner.list(prefix, options);
  }
  compareAndSet(k: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
    return this.inner.compareAndSet(k, e, n);
  }
}

/** Authenticate until an entry is served from the cache (the watch subscribes asynchronously). */
async function warm(tokens: TokenStore, storage: CountingStorage, token: string): Promise<void> {
  await eventually(async () => {
    const before = storage.reads;
    await tokens.authenticate(token);
    return storage.reads === before;
  }, 'the token is served from the cache');
}

describe('token cache', () => {
  it('serves a watched token without reading storage', async () => {
    const storage = new CountingStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    await warm(tokens, storage, root);
    const before = storage.reads;
    for (let i = 0; i < 100; i++) expect((await tokens.authenticate(root))?.isRoot).toBe(true);
    expect(storage.reads).toBe(before);
    await tokens.close();
  });

  it('reads storage on every use without watch, and after close', async () => {
    const storage = new CountingStorage(new MemoryStorage(), false);
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const before = storage.reads;
    for (let i = 0; i < 5; i++) await tokens.authenticate(root);
    expect(storage.reads).toBe(before + 5);

    const watched = new CountingStorage();
    const closing = new TokenStore({ storage: watched });
    const r2 = await closing.createRoot();
    await warm(closing, watched, r2);
    await closing.close();
    const after = watched.reads;
    await closing.authenticate(r2);
    expect(watched.reads).toBe(after + 1);
  });

  it('drops an entry another store revokes, and a child with it', async () => {
    const storage = new CountingStorage();
    const a = new TokenStore({ storage });
    const b = new TokenStore({ storage });
    const root = (await a.authenticate(await a.createRoot())) as TokenContext;
    const parent = (await a.create(root, { policies: ['app'] })).client_token;
    const pctx = (await a.authenticate(parent)) as TokenContext;
    const child = (await a.create(pctx, { policies: ['app'] })).client_token;
    await warm(b, storage, parent);
    await warm(b, storage, child);
    await a.revoke(parent);
    expect(await b.authenticate(parent)).toBeUndefined();
    expect(await b.authenticate(child)).toBeUndefined();
    await a.close();
    await b.close();
  });

  it('does not keep a read that a revocation overtook', async () => {
    const storage = new FlakyStorage();
    const a = new TokenStore({ storage: storage.inner });
    const root = (await a.authenticate(await a.createRoot())) as TokenContext;
    const t = (await a.create(root, { policies: ['app'] })).client_token;
    const c = new TokenStore({ storage });
    await c.exists('hvs.unknown'); // loads the salt
    await new Promise((r) => setTimeout(r, 20)); // lets its watch subscribe
    storage.holding.add('auth/token/id/');
    const inFlight = c.authenticate(t); // its read is held after reading the entry
    await eventually(async () => storage.heldCount > 0, 'the read is held');
    await a.revoke(t); // c hears of it while its read is held
    storage.holding.clear();
    storage.release();
    await inFlight; // answered from the bytes read before the revocation
    expect(await c.authenticate(t)).toBeUndefined();
    await c.close();
  });

  it('re-reads a cached entry within a second when a notification is lost', async () => {
    const storage = new CountingStorage();
    const clock = new FakeClock();
    const a = new TokenStore({ storage, clock });
    const b = new TokenStore({ storage: storage.inner, clock });
    const root = (await a.authenticate(await a.createRoot())) as TokenContext;
    const t = (await a.create(root, { policies: ['app'] })).client_token;
    await warm(a, storage, t);
    storage.deaf = true;
    await b.revoke(t);
    clock.advance(1_000);
    expect(await a.authenticate(t)).toBeUndefined();
    await a.close();
  });

  it('counts every use of a limited-use token (never served from the cache)', async () => {
    const storage = new CountingStorage();
    const tokens = new TokenStore({ storage });
    const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t = (await tokens.create(root, { policies: ['app'], num_uses: 3 })).client_token;
    await new Promise((r) => setTimeout(r, 20));
    for (let i = 0; i < 3; i++) expect(await tokens.authenticate(t)).toBeDefined();
    expect(await tokens.authenticate(t)).toBeUndefined();
    await tokens.close();
  });

  it('never takes an entry stored under another token hash, cached or not', async () => {
    const storage = new CountingStorage();
    const tokens = new TokenStore({ storage });
    const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t1 = (await tokens.create(root, { policies: ['a'] })).client_token;
    const t2 = (await tokens.create(root, { policies: ['b'] })).client_token;
    const h1 = ((await tokens.authenticate(t1)) as TokenContext).hash;
    const h2 = ((await tokens.authenticate(t2)) as TokenContext).hash;
    const moved = await storage.inner.get(`auth/token/id/${h1}`);
    await storage.inner.put(`auth/token/id/${h2}`, moved as Uint8Array);
    for (let i = 0; i < 3; i++) expect(await tokens.authenticate(t2)).toBeUndefined();
    expect(await tokens.exists(t2)).toBe(false);
    expect((await tokens.authenticate(t1))?.policies).toContain('a');
    await tokens.close();
  });

  it('still expires a cached token on the clock', async () => {
    const storage = new CountingStorage();
    const clock = new FakeClock();
    const tokens = new TokenStore({ storage, clock });
    const root = (await tokens.authenticate(await tokens.createRoot())) as TokenContext;
    const t = (await tokens.create(root, { policies: ['app'], ttl: '10s' })).client_token;
    await warm(tokens, storage, t);
    clock.advance(10_000);
    expect(await tokens.authenticate(t)).toBeUndefined();
    await tokens.close();
  });
});
