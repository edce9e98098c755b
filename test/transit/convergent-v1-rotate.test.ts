/**
 * A restored legacy convergent key (policy-level
 * convergent_version 1, versions without their own) keeps scheme 1 for new
 * versions in Vault (RotateInMemory stamps entry.ConvergentVersion = 3 only
 * when p.ConvergentVersion is -1 or > 1). transitkit stamped 3
 * always, so after a rotate the caller's `nonce` was refused for the latest
 * version, where Vault requires it.
 */
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';

const OPEN = { exportable: true, allow_plaintext_backup: true } as const;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('rotating a restored convergent-v1 key', () => {
  it('keeps the v1 scheme (caller nonce) for the new version, as Vault does', async () => {
    const src = new Transit({ autoRotate: false });
    await src.createKey('conv', { ...OPEN, derived: true, convergent_encryption: true });
    const { backup } = await src.backupKey('conv');
    const j = JSON.parse(Buffer.from(backup, 'base64').toString());
    // A key made before convergent v2: the policy says 1, the entries say nothing.
    j.policy.convergent_version = 1;
    for (const e of Object.values(j.policy.keys) as { convergent_version: number }[])
      e.convergent_version = 0;
    for (const e of j.archived_keys.keys as { convergent_version: number }[])
      e.convergent_version = 0;
    const legacy = Buffer.from(JSON.stringify(j)).toString('base64');

    const t = new Transit({ autoRotate: false });
    await t.restoreKey({ backup: legacy });
    const req = { plaintext: b64('fox'), context: b64('ctx'), nonce: b64('123456789012') };
    const v1 = await t.encrypt('conv', req);
    expect(v1.ciphertext).toMatch(/^vault:v1:/);

    await t.rotateKey('conv');
    const v2 = await t.encrypt('conv', req).then(
      (r) => r.ciphertext.slice(0, 9),
      (e: Error) => e.message,
    );
    expect(v2).toBe('vault:v2:'); // transitkit: "provided nonce not allowed for this key"
  });
});
