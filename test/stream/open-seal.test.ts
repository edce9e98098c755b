/**
 * An openEncrypted object across a seal: a read in flight whose chunk is
 * opened after another call wiped the key answers `sealed` (not "the envelope
 * was tampered with"), and a plaintextSize() in flight is not answered.
 */
import { describe, expect, it } from 'vitest';
import { outcome } from '../helpers/gated-storage.js';
import { autoNodeWithKey, envelopeOf } from '../helpers/test-nodes.js';

async function setup() {
  const node = await autoNodeWithKey();
  const env = await envelopeOf(node, new Uint8Array(100_000).fill(9));
  // A source whose reads past the header can be held.
  let holdNext = false;
  const held: Array<() => void> = [];
  const source = {
    size: env.length,
    read: async (offset: number, length: number) => {
      if (holdNext) {
        holdNext = false;
        await new Promise<void>((go) => held.push(go));
      }
      return env.slice(offset, offset + length);
    },
  };
  const obj = await node.transit.openEncrypted('k', source);
  return { node, obj, hold: () => (holdNext = true), held };
}

const until = async (f: () => boolean) => {
  while (!f()) await new Promise((r) => setTimeout(r, 5));
};

describe('openEncrypted across a seal', () => {
  it('a read in flight fails `sealed`, not as tampered data, when another call wiped the key', async () => {
    const { node, obj, hold, held } = await setup();
    hold();
    const a = outcome(obj.read(0, 10));
    await until(() => held.length > 0);
    await node.seal();
    const b = await outcome(obj.read(20_000, 10)); // refused, and wipes the key
    expect(b).toMatchObject({ ok: false, code: 'sealed' });
    held[0]?.();
    expect(await a).toMatchObject({ ok: false, code: 'sealed' });
  });

  it('plaintextSize in flight across a seal is refused as read is', async () => {
    const { node, obj, hold, held } = await setup();
    hold();
    const size = outcome(obj.plaintextSize());
    await until(() => held.length > 0);
    await node.seal();
    held[0]?.();
    expect(await size).toMatchObject({ ok: false, code: 'sealed' });
  });
});
