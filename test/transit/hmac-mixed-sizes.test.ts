/**
 * Vault imports hmac keys and import_version sets the policy's
 * KeySize to the size of the material last imported (keysutil policy.go
 * ImportPublicOrPrivate: `if p.Type == KeyType_HMAC { p.KeySize = len(key) }`),
 * so a Vault hmac key can hold versions of different sizes (32..512 bytes each).
 * Vault restores its backup (no size check on restore); transitkit refused it
 * because every version had to have exactly the policy's key_size.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';

const OPEN = { exportable: true, allow_plaintext_backup: true } as const;

describe('a Vault hmac key imported with two sizes', () => {
  it('restores, and each version HMACs with its own key', async () => {
    const src = new Transit({ autoRotate: false });
    await src.createKey('h', { ...OPEN, type: 'hmac', key_size: 64 });
    await src.rotateKey('h');
    const { backup } = await src.backupKey('h');
    const j = JSON.parse(Buffer.from(backup, 'base64').toString());
    // As Vault leaves it: import of 32 bytes (v1), then import_version of 64 bytes (v2).
    const k1 = randomBytes(32);
    const k2 = randomBytes(64);
    j.policy.Imported = true;
    j.policy.key_size = 64;
    j.policy.keys['1'].key = k1.toString('base64');
    j.policy.keys['1'].hmac_key = k1.toString('base64');
    j.policy.keys['2'].key = k2.toString('base64');
    j.policy.keys['2'].hmac_key = k2.toString('base64');
    j.archived_keys.keys[1] = j.policy.keys['1'];
    j.archived_keys.keys[2] = j.policy.keys['2'];
    const blob = Buffer.from(JSON.stringify(j)).toString('base64');

    const t = new Transit({ autoRotate: false });
    const outcome = await t.restoreKey({ backup: blob }).then(
      () => 'restored',
      (e: Error) => e.message,
    );
    expect(outcome).toBe('restored'); // transitkit: invalid backup: key version 1 has the wrong size for hmac
    const input = Buffer.from('fox').toString('base64');
    const h1 = await t.hmac('h', { input, key_version: 1 });
    expect(h1.hmac.endsWith(createHmac('sha256', k1).update('fox').digest('base64'))).toBe(true);
  });
});
