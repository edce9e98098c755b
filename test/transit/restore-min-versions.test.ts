/**
 * Restore accepted a blob whose min_encryption_version is set
 * but below min_decryption_version. Vault's restore refuses it (Persist ->
 * handleArchiving: "minimum decryption version of %d is greater than minimum
 * encryption version %d"), and so does transitkit's own config rule; once
 * restored, every config update of the key was refused, even one that does not
 * touch the versions.
 */
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';

const OPEN = { exportable: true, allow_plaintext_backup: true } as const;

function edit(backup: string, fn: (policy: Record<string, unknown>) => void): string {
  const j = JSON.parse(Buffer.from(backup, 'base64').toString());
  fn(j.policy);
  return Buffer.from(JSON.stringify(j)).toString('base64');
}

describe('restore of min_encryption_version below min_decryption_version', () => {
  it('is refused, as Vault refuses it', async () => {
    const t = new Transit({ autoRotate: false });
    await t.createKey('k', OPEN);
    for (let i = 0; i < 3; i++) await t.rotateKey('k');
    const { backup } = await t.backupKey('k');
    const bad = edit(backup, (p) => {
      p.min_decryption_version = 3;
      p.min_encryption_version = 2;
    });
    const other = new Transit({ autoRotate: false });
    const outcome = await other.restoreKey({ backup: bad }).then(
      () => 'restored',
      (e: Error) => e.message,
    );
    // What the accepted key then does: no config update goes through.
    const config = await other.updateKeyConfig('k', { deletion_allowed: true }).then(
      () => 'updated',
      (e: Error) => e.message,
    );
    expect({ outcome, config }).toEqual({
      outcome: expect.stringMatching(/invalid backup/),
      config: expect.any(String),
    });
  });
});
