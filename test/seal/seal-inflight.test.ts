/**
 * A seal and the calls in flight: nothing of the sealed period lands or
 * answers after `seal()` returns. A write that passed the barrier before the
 * keyring was dropped settles first (the seal waits for it, 2 s at most), and
 * so does the call it answers; a read that began before a seal answers
 * `sealed`, even after the next unseal (the barrier counts its periods), as
 * Vault's seal takes the state lock every request holds.
 *
 * Either order is accepted where both keep that rule: the call settles
 * before the seal, or it fails `sealed` having written nothing after it.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryStorage } from '../../src/index.js';
import { outcome } from '../helpers/gated-storage.js';
import { gatedShamirNode } from '../helpers/test-nodes.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

const shamirNode = gatedShamirNode;

async function snapshot(s: MemoryStorage): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const k of await s.list('')) {
    const v = await s.get(k);
    out.set(k, Buffer.from(v ?? []).toString('hex'));
  }
  return out;
}

describe('seal with calls in flight', () => {
  it('a rotate in flight does not write after seal() resolved, nor report success past it', async () => {
    const { gate, node, inner } = await shamirNode();
    await node.transit.createKey('k');
    gate.arm({ op: 'cas', match: (k) => k === 'transit/policy/k' });
    const order: string[] = [];
    const rotate = outcome(node.transit.rotateKey('k')).then((r) => {
      order.push('rotate');
      return r;
    });
    await gate.held(); // the new document is sealed by the barrier, its write held
    const seal = node.seal().then(() => order.push('seal'));
    await new Promise((r) => setTimeout(r, 200));
    const afterSeal = order.includes('seal') ? await snapshot(inner) : undefined;
    gate.release();
    await seal;
    const r = await rotate;
    if (order[0] === 'seal') {
      // seal() did not wait: the call must fail and leave storage as seal() left it.
      expect(r).toMatchObject({ ok: false, code: 'sealed' });
      expect(await snapshot(inner)).toEqual(afterSeal);
    } else {
      expect(order).toEqual(['rotate', 'seal']);
    }
  });

  it('a decrypt begun before a seal is not answered by the closed engine after the next unseal', async () => {
    const { gate, node, key } = await shamirNode();
    await node.transit.createKey('k');
    const { ciphertext } = await node.transit.encrypt('k', { plaintext: b64('secret') });
    // A new period: the engine has not cached the key.
    await node.seal();
    await node.unseal({ key });
    gate.arm({ op: 'get', match: (k) => k === 'transit/policy/k' });
    const order: string[] = [];
    const decrypt = outcome(node.transit.decrypt('k', { ciphertext })).then((r) => {
      order.push('decrypt');
      return r;
    });
    await gate.held();
    const seal = node.seal().then(() => order.push('seal'));
    await new Promise((r) => setTimeout(r, 200));
    if (order.includes('seal')) await node.unseal({ key });
    gate.release();
    await seal;
    const r = await decrypt;
    if (order[0] === 'seal') expect(r).toMatchObject({ ok: false, code: 'sealed' });
    else expect(order).toEqual(['decrypt', 'seal']);
  });
});
