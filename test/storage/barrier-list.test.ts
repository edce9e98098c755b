/**
 * The barrier reserves `core/` (the seal's keyring and configuration) for
 * every operation, `list` included: a listing that spans it leaves those keys
 * out (and still fills a page of `limit` keys), and a prefix inside it is
 * refused as get/put/delete refuse a key there. So every key a listing shows
 * can be read through the barrier (a walk of the store never fails part-way).
 */
import { describe, expect, it } from 'vitest';
import { Keyring } from '../../src/node/keyring.js';
import { Barrier } from '../../src/storage/barrier.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { BACKENDS } from '../helpers/backends.js';

const te = new TextEncoder();
const backend = (BACKENDS[0] as readonly [string, never])[1];

async function store() {
  const inner = new MemoryStorage();
  const barrier = new Barrier(inner, backend);
  barrier.unseal(Keyring.create(backend, 0));
  await inner.put('core/keyring', te.encode('sealed keyring'));
  await inner.put('core/seal-config', te.encode('seal'));
  for (const k of ['a', 'b', 'cat', 'corn', 'd', 'e']) await barrier.put(k, te.encode(k));
  return barrier;
}

describe('Barrier.list and the reserved core/ prefix', () => {
  it('leaves the reserved keys out of a listing that spans them; each listed key reads', async () => {
    const barrier = await store();
    const listed = await barrier.list('');
    expect(listed).toEqual(['a', 'b', 'cat', 'corn', 'd', 'e']);
    for (const k of listed) expect(await barrier.get(k)).toEqual(te.encode(k));
    expect(await barrier.list('co')).toEqual(['rn']);
    expect(await barrier.list('core')).toEqual([]);
  });

  it('fills each page of a limited listing from the keys after the reserved ones', async () => {
    const barrier = await store();
    const pages: string[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await barrier.list('', { limit: 2, ...(after === undefined ? {} : { after }) });
      if (page.length === 0) break;
      pages.push(page);
      after = page[page.length - 1];
    }
    expect(pages).toEqual([
      ['a', 'b'],
      ['cat', 'corn'],
      ['d', 'e'],
    ]);
    expect(await barrier.list('', { limit: 1, after: 'corn' })).toEqual(['d']);
  });

  it('refuses a prefix inside the reserved one, as get refuses a key there', async () => {
    const barrier = await store();
    await expect(barrier.list('core/')).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/reserved/),
    });
    await expect(barrier.get('core/keyring')).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
