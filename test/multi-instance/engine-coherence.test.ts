/**
 * Two `Transit` engines on one storage with `watch` (in one process, over a
 * MemoryStorage whose reads can be held or made to fail), for the orderings a
 * real deployment produces only by chance (issue #15, items 1 and 2):
 *
 * - a change notification that overtakes a key read in flight must not leave
 *   the older document cached;
 * - settings that cannot be reloaded fail closed: upsert is refused until a
 *   reload succeeds (retried on its own);
 * - without notifications at all, no cached key is used for more than a
 *   second without checking storage;
 * - a key entry that fails barrier authentication is an error, never "absent":
 *   an upsert does not replace it with a new key.
 *
 * The real-process versions on Redis are in authority.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Barrier, isTransitError, nobleBackend, Transit } from '../../src/index.js';
import { Keyring } from '../../src/node/keyring.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { eventually, FlakyStorage } from '../auth/flaky-storage.js';

const plaintext = btoa('attack at dawn');
const engines: Transit[] = [];
afterEach(async () => {
  for (const t of engines.splice(0)) await t.close();
});

function two(flaky: FlakyStorage): { a: Transit; b: Transit } {
  const a = new Transit({ storage: flaky.inner, autoRotate: false });
  const b = new Transit({ storage: flaky, autoRotate: false });
  engines.push(a, b);
  return { a, b };
}

describe('key cache', () => {
  it('a rotation notified while B reads the key is not undone by that read', async () => {
    const flaky = new FlakyStorage();
    const { a, b } = two(flaky);
    await a.createKey('k');
    await b.readKeysConfig(); // B is started and watching
    flaky.holding.add('transit/policy/k');
    const inFlight = b.encrypt('k', { plaintext }); // reads version 1, then waits
    await eventually(async () => flaky.heldCount > 0, 'B started reading');
    await a.rotateKey('k'); // the notification reaches B meanwhile
    await new Promise((r) => setTimeout(r, 20));
    flaky.holding.clear();
    flaky.release();
    await inFlight; // concurrent with the rotation: either version is fine
    expect((await b.encrypt('k', { plaintext })).ciphertext).toMatch(/^vault:v2:/);
  });
});

describe('lost notifications', () => {
  it('without watch, a rotation on A reaches B once its cached key is a second old', async () => {
    const inner = new MemoryStorage();
    const unwatched = {
      get: (k: string) => inner.get(k),
      put: (k: string, v: Uint8Array) => inner.put(k, v),
      delete: (k: string) => inner.delete(k),
      list: (p: string, o?: { after?: string; limit?: number }) => inner.list(p, o),
      compareAndSet: (k: string, e: Uint8Array | undefined, n: Uint8Array | undefined) =>
        inner.compareAndSet(k, e, n),
    };
    const a = new Transit({ storage: unwatched, autoRotate: false });
    const b = new Transit({ storage: unwatched, autoRotate: false });
    engines.push(a, b);
    await a.createKey('k');
    expect((await b.encrypt('k', { plaintext })).ciphertext).toMatch(/^vault:v1:/); // cached
    await a.rotateKey('k');
    await eventually(
      async () => (await b.encrypt('k', { plaintext })).ciphertext.startsWith('vault:v2:'),
      'B re-reads its cached key',
    );
  });
});

describe('settings fail closed', () => {
  it('when B cannot reload disable_upsert it refuses upsert, and recovers on its own', async () => {
    const flaky = new FlakyStorage();
    const { a, b } = two(flaky);
    await b.encrypt('upsert-1', { plaintext }); // upsert allowed, B started and watching
    flaky.failing.add('transit/config/');
    await a.writeKeysConfig({ disable_upsert: true });
    await eventually(async () => {
      try {
        await b.encrypt(`u-${Math.random()}`, { plaintext });
        return false;
      } catch (e) {
        return isTransitError(e, 'invalid_request');
      }
    }, 'B refuses upsert while the settings cannot be read');
    await a.writeKeysConfig({ disable_upsert: false });
    flaky.failing.clear(); // the retry, not a new notification, must pick this up
    await eventually(
      async () =>
        b.encrypt(`u-${Math.random()}`, { plaintext }).then(
          () => true,
          () => false,
        ),
      'B upserts again once the settings read',
    );
  });
});

describe('key entries fail closed', () => {
  it('a key entry failing barrier authentication is an error, never replaced by an upsert', async () => {
    const inner = new MemoryStorage();
    const barrier = new Barrier(inner, nobleBackend);
    barrier.unseal(Keyring.create(nobleBackend, 0));
    const a = new Transit({ storage: barrier, autoRotate: false });
    engines.push(a);
    await a.createKey('k');
    const stored = (await inner.get('transit/policy/k')) as Uint8Array;
    const tampered = stored.slice();
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    await inner.put('transit/policy/k', tampered);
    const b = new Transit({ storage: barrier, autoRotate: false });
    engines.push(b);
    for (let i = 0; i < 2; i++) {
      const e = await b.encrypt('k', { plaintext }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isTransitError(e, 'internal')).toBe(true);
    }
    expect(await inner.get('transit/policy/k')).toEqual(tampered);
  });
});
