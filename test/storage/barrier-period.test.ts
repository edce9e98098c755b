/**
 * The barrier's periods: a read that began before a seal answers `sealed`,
 * even when it waited on a keyring reload (another instance rotated the
 * keyring) across a seal and an unseal; and compareAndSet keeps the period of
 * its call, so an attempt lost across a seal and an unseal does not retry in
 * the new period and write the value sealed for the earlier one.
 */
import { describe, expect, it } from 'vitest';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { Barrier, type BarrierKeyring } from '../../src/storage/barrier.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { outcome } from '../helpers/gated-storage.js';
import { StorageView } from '../helpers/storage-view.js';

const te = new TextEncoder();
const td = new TextDecoder();
const k1 = nodeBackend.randomBytes(32);
const k2 = nodeBackend.randomBytes(32);
const ring1: BarrierKeyring = { activeTerm: 1, key: (t) => (t === 1 ? k1 : undefined) };
const ring12: BarrierKeyring = {
  activeTerm: 2,
  key: (t) => (t === 1 ? k1 : t === 2 ? k2 : undefined),
};
const until = async (f: () => boolean) => {
  while (!f()) await new Promise((r) => setTimeout(r, 5));
};

describe('barrier periods', () => {
  it('a get that waits on a keyring reload across a seal and an unseal answers sealed', async () => {
    const inner = new MemoryStorage();
    // Another instance, already on term 2, wrote the entry.
    const other = new Barrier(inner, nodeBackend);
    other.unseal(ring12);
    await other.put('transit/policy/k', te.encode('secret value'));

    const barrier = new Barrier(inner, nodeBackend);
    let finish: (() => void) | undefined;
    barrier.unseal(ring1, () => new Promise((r) => (finish = () => r(ring12))));
    const read = outcome(barrier.get('transit/policy/k'));
    await until(() => finish !== undefined); // the read passed its period check, the reload runs
    barrier.seal();
    barrier.unseal(ring12, async () => ring12); // the next period
    finish?.();
    const r = await read;
    expect(r.ok ? td.decode(r.v as Uint8Array) : r).toMatchObject({ ok: false, code: 'sealed' });
  });

  it('a compareAndSet begun before a seal does not write after the next unseal', async () => {
    const mem = new MemoryStorage();
    let hold: (() => void) | undefined;
    let armed = false;
    class Held extends StorageView {
      override compareAndSet(key: string, e: Uint8Array | undefined, n: Uint8Array | undefined) {
        if (!armed) return super.compareAndSet(key, e, n);
        armed = false;
        // The first attempt loses: another writer re-sealed the same value meanwhile.
        return new Promise<void>((go) => (hold = go)).then(() => super.compareAndSet(key, e, n));
      }
    }
    const inner = new Held(mem);
    const barrier = new Barrier(inner, nodeBackend);
    barrier.unseal(ring12);
    await barrier.put('transit/policy/k', te.encode('v1'));
    armed = true;
    const cas = outcome(
      barrier.compareAndSet(
        'transit/policy/k',
        te.encode('v1'),
        te.encode('v2 of the sealed period'),
      ),
    );
    await until(() => hold !== undefined);
    // Another instance rewrites the same value (new ciphertext): the held attempt loses.
    const other = new Barrier(mem, nodeBackend);
    other.unseal(ring12);
    await other.put('transit/policy/k', te.encode('v1'));
    barrier.seal();
    barrier.unseal(ring12);
    hold?.();
    const r = await cas;
    const now = td.decode((await barrier.get('transit/policy/k')) as Uint8Array);
    expect({ r, now }).toMatchObject({ r: { ok: false, code: 'sealed' }, now: 'v1' });
  });
});
