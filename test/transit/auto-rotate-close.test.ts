/**
 * close() ("Stop background work") stops an auto-rotation pass in flight at
 * its next key and waits for it (briefly): the pass went on rotating keys with
 * the closed engine after close() resolved (a node's seal, an app closing its
 * storage next).
 */
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../helpers/fake-clock.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an auto-rotation pass and close()', () => {
  it('rotates nothing once close() has resolved', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const setup = new Transit({ storage, clock, autoRotate: false });
    await setup.createKey('k', { auto_rotate_period: '1h' });
    await setup.close();
    clock.advance(2 * 3600_000); // k is due
    const list = storage.list.bind(storage);
    let listed!: () => void;
    const passBegun = new Promise<void>((r) => {
      listed = r;
    });
    storage.list = (async (prefix: string, options?: Parameters<typeof list>[1]) => {
      if (prefix.startsWith('transit/policy/')) {
        listed();
        await sleep(200); // a slow page
      }
      return list(prefix, options);
    }) as typeof storage.list;
    const transit = new Transit({ storage, clock, autoRotate: { intervalMs: 20 } });
    await passBegun;
    await transit.close();
    await sleep(500);
    const after = new Transit({ storage, clock, autoRotate: false });
    const info = await after.readKey('k');
    await after.close();
    expect(info.latest_version).toBe(1);
  });
});
