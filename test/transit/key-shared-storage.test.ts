/**
 * Two Transit instances on one storage: deletes and config changes by one are
 * seen by the other (no stale key cache).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { Transit } from '../../src/index.js';
import { b64, expectError, makeEngine, settle, unb64 } from './support.js';

describe('instances sharing one storage', () => {
  it('a key deleted by one instance is gone for the other (no stale cache)', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    await a.transit.createKey('k');
    const { ciphertext } = await b.transit.encrypt('k', { plaintext: b64('x') }); // b caches k
    expect(unb64(ciphertext.slice('vault:v1:'.length)).length).toBe(12 + 1 + 16);
    await a.transit.updateKeyConfig('k', { deletion_allowed: true });
    await a.transit.deleteKey('k');
    await settle();
    await expectError(b.transit.readKey('k'), 'not_found');
    await expectError(
      b.transit.encrypt('k', { plaintext: b64('x') }, { upsert: false }),
      'invalid_request',
      'encryption key not found',
    );
    await expectError(
      b.transit.decrypt('k', { ciphertext }),
      'invalid_request',
      'encryption key not found',
    );
  });

  it('a config change by one instance applies on the other', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    await a.transit.createKey('k');
    await a.transit.rotateKey('k');
    const { ciphertext } = await b.transit.encrypt('k', { plaintext: b64('x'), key_version: 1 }); // b caches k
    await a.transit.updateKeyConfig('k', { min_decryption_version: 2 });
    await settle();
    await expectError(
      b.transit.decrypt('k', { ciphertext }),
      'invalid_request',
      'ciphertext or signature version is disallowed by policy (too old)',
    );
  });

  it('sixteen instances rotating one key on one file store at once: every rotate lands', async () => {
    // Without a pause between lost compare-and-sets, 8 instances lost 12 of 80 rotates to `conflict`.
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-contention-'));
    try {
      const storage = await FileStorage.open(dir);
      const all = Array.from({ length: 16 }, () => new Transit({ storage, autoRotate: false }));
      await all[0]?.createKey('k');
      const results = await Promise.allSettled(
        all.flatMap((t) => Array.from({ length: 5 }, () => t.rotateKey('k'))),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      await Promise.all(all.map((t) => t.close()));
      // A fresh instance: the others do not watch a file store, so each saw its own last write.
      const fresh = new Transit({ storage, autoRotate: false });
      expect((await fresh.readKey('k')).latest_version).toBe(81);
      await fresh.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
