/**
 * A key whose auto_rotate_period exceeds about 104 days restores from its
 * backup (its own, and Vault's blob for the same key): the nanosecond field
 * passes 2^53 there and is read exactly.
 */
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';

const OPEN = { exportable: true, allow_plaintext_backup: true } as const;

describe('auto_rotate_period above 2^53 ns in a backup', () => {
  it('a transitkit key with auto_rotate_period 8760h restores from its own backup', async () => {
    const t = new Transit({ autoRotate: false });
    await t.createKey('yearly', { ...OPEN, auto_rotate_period: '8760h' });
    expect((await t.readKey('yearly')).auto_rotate_period).toBe(31_536_000);
    const { backup } = await t.backupKey('yearly');
    const text = Buffer.from(backup, 'base64').toString();
    // Vault's own encoding of 8760h: 31536000000000000 ns.
    expect(text).toContain('"auto_rotate_period":31536000000000000,');
    const other = new Transit({ autoRotate: false });
    await other.restoreKey({ backup }); // fails: invalid backup: 'auto_rotate_period' must be an integer
    expect((await other.readKey('yearly')).auto_rotate_period).toBe(31_536_000);
  });

  it('the boundary: 104 days restores, 105 days does not', async () => {
    const results: Record<string, string> = {};
    for (const h of ['2496h', '2520h']) {
      const t = new Transit({ autoRotate: false });
      await t.createKey('k', { ...OPEN, auto_rotate_period: h });
      const { backup } = await t.backupKey('k');
      const other = new Transit({ autoRotate: false });
      results[h] = await other.restoreKey({ backup }).then(
        () => 'ok',
        (e: Error) => e.message,
      );
    }
    expect(results).toEqual({ '2496h': 'ok', '2520h': 'ok' });
  });
});
