/**
 * `transit/config/keys` across two engines on one storage:
 * - B writes it, A writes it again right after (storage order: B, then A),
 *   and A's notification reaches B while B's own put has not yet returned: B
 *   applied its own older value over the reload, and kept upserting with
 *   nothing ever correcting it;
 * - while B's change feed lags, `disable_upsert` set on A held on B only when
 *   the notification came: the upsert path now reads the setting from storage.
 */
import { afterEach, expect, it } from 'vitest';
import { isTransitError, Transit } from '../../src/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { SlowFeed } from '../helpers/slow-feed.js';
import { StorageView } from '../helpers/storage-view.js';

const plaintext = btoa('attack at dawn');
const engines: Transit[] = [];
afterEach(async () => {
  for (const t of engines.splice(0)) await t.close();
});

/** Puts land in storage at once, but the caller hears back only after release(). */
class SlowAck extends StorageView {
  holding = false;
  #held: (() => void)[] = [];
  override async put(key: string, value: Uint8Array): Promise<void> {
    await this.inner.put(key, value);
    if (this.holding) await new Promise<void>((r) => this.#held.push(r));
  }
  get heldCount(): number {
    return this.#held.length;
  }
  release(): void {
    for (const go of this.#held.splice(0)) go();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("B's own settings write, acknowledged late, does not override A's later disable_upsert", async () => {
  const inner = new MemoryStorage();
  const view = new SlowAck(inner);
  const a = new Transit({ storage: inner, autoRotate: false });
  const b = new Transit({ storage: view, autoRotate: false });
  engines.push(a, b);
  await a.readKeysConfig();
  await b.readKeysConfig(); // both started and watching

  view.holding = true;
  const bWrite = b.writeKeysConfig({ disable_upsert: false }); // lands at once, ack held
  while (view.heldCount === 0) await sleep(1);
  await a.writeKeysConfig({ disable_upsert: true }); // lands after B's write
  await sleep(20); // A's notification reaches B, B's reload reads `true`
  view.holding = false;
  view.release();
  await bWrite;

  // Storage (the authority) says upsert is disabled.
  expect(JSON.parse(new TextDecoder().decode(await inner.get('transit/config/keys')))).toEqual({
    disable_upsert: true,
  });
  expect((await a.readKeysConfig()).disable_upsert).toBe(true);
  await sleep(1_200); // past any 1 s backstop
  expect((await b.readKeysConfig()).disable_upsert).toBe(true);
  const e = await b.encrypt('created-by-upsert', { plaintext }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isTransitError(e, 'invalid_request')).toBe(true);
});

it('B refuses upsert within about a second of A disabling it, even while its feed lags', async () => {
  const storage = new MemoryStorage();
  const feed = new SlowFeed(storage);
  const a = new Transit({ storage, autoRotate: false });
  const b = new Transit({ storage: feed, autoRotate: false });
  engines.push(a, b);
  await a.readKeysConfig();
  await b.readKeysConfig();
  feed.flush();

  await a.writeKeysConfig({ disable_upsert: true }); // B's notification is held
  await new Promise((r) => setTimeout(r, 1_500));
  const e = await b.encrypt('created-by-upsert', { plaintext }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isTransitError(e, 'invalid_request')).toBe(true);
  expect(await storage.get('transit/policy/created-by-upsert')).toBeUndefined();
});
