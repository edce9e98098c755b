/**
 * A settings write whose re-read (it overlapped a change notification) fails:
 * the write is reported as done (it landed), and upsert and `GET
 * transit/config/keys` follow storage. The failed re-read left the copy failed
 * closed, and the engine refused upsert until some later notification.
 */
import { afterEach, expect, it } from 'vitest';
import { Transit } from '../../src/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { StorageView } from '../helpers/storage-view.js';

const engines: Transit[] = [];
afterEach(async () => {
  for (const t of engines.splice(0)) await t.close();
});

/** Fails exactly the n-th read of transit/config/keys after arming. */
class FlakyRead extends StorageView {
  failAt = 0;
  #reads = 0;
  override async get(key: string): Promise<Uint8Array | undefined> {
    if (key === 'transit/config/keys' && this.failAt > 0 && ++this.#reads === this.failAt) {
      throw new Error('transient storage failure');
    }
    return this.inner.get(key);
  }
}

it('a transient failure of the re-read does not leave upsert disabled for good', async () => {
  const storage = new FlakyRead(new MemoryStorage());
  const t = new Transit({ storage, autoRotate: false });
  engines.push(t);
  expect((await t.readKeysConfig()).disable_upsert).toBe(false); // started, watching

  // The write's own notification (MemoryStorage: a microtask, before put's
  // await resumes) starts a load (read #1, fine); writeSetting sees the load
  // counter moved and re-reads (read #2, fails).
  storage.failAt = 2;
  const write = await t.writeKeysConfig({ disable_upsert: false }).then(
    () => undefined,
    (e: unknown) => e,
  );
  storage.failAt = 0;
  // Storage says upsert is allowed.
  expect(
    JSON.parse(new TextDecoder().decode(await storage.inner.get('transit/config/keys'))),
  ).toEqual({
    disable_upsert: false,
  });
  await new Promise((r) => setTimeout(r, 1_500)); // past the change feed's 1 s retry
  const cfg = await t.readKeysConfig();
  const enc = await t.encrypt('made-by-upsert', { plaintext: btoa('x') }).then(
    () => 'ok',
    (e: unknown) => String(e),
  );
  expect({ write: write === undefined ? 'ok' : String(write), cfg, enc }).toEqual({
    write: 'ok',
    cfg: { disable_upsert: false },
    enc: 'ok',
  });
});
