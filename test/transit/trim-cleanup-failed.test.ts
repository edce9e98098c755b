/**
 * A trim whose document committed but whose deletion of the trimmed archive
 * entries failed reported an error, yet the key already read as trimmed
 * (min_available_version moved), and nothing but another trim of the same key
 * swept the entries below it: later writes left the trimmed key material in
 * storage indefinitely. Now the trim succeeds (it took effect) and the key's
 * next write sweeps what is left.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStorage, Transit } from '../../src/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { StorageView } from '../helpers/storage-view.js';

class FailArchiveDelete extends StorageView {
  armed = false;
  override async delete(key: string): Promise<void> {
    if (this.armed && key.startsWith('transit/archive/')) {
      this.armed = false;
      throw new Error('simulated storage outage');
    }
    return this.inner.delete(key);
  }
}

describe('trim whose clean-up failed after it committed', () => {
  it('leaves no trimmed key material once the key is written again', async () => {
    const clock = new FakeClock();
    const inner = new MemoryStorage({ clock });
    const storage = new FailArchiveDelete(inner);
    const t = new Transit({ storage, clock, autoRotate: false });
    await t.createKey('k');
    for (let i = 0; i < 24; i++) await t.rotateKey('k'); // versions 1..9 archived
    await t.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    storage.armed = true;
    const trim = await t.trimKey('k', { min_available_version: 10 }).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    // The trim took effect, and is reported so:
    expect(trim).toBe('ok');
    expect((await t.readKey('k')).min_available_version).toBe(10);
    // The client sees the key trimmed and carries on; later writes of the key:
    await t.rotateKey('k');
    await t.updateKeyConfig('k', { deletion_allowed: false });
    const left = (await inner.list('transit/archive/'))
      .map((k) => Number(k.split('/').pop()))
      .filter((v) => v < 10);
    expect({ trim, left }).toEqual({ trim, left: [] });
  });
});
