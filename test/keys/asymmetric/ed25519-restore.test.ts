/**
 * A Vault backup may carry a public-only Ed25519 version whose `public_key`
 * is a point of small order (the identity). Import refuses such a key
 * (src/crypto/pki/spki.ts refuseSmallOrder) because OpenSSL's cofactorless
 * check (node backend) then accepts the signature R = identity, S = 0 for
 * every message while noble refuses it. Restore must refuse it too, or the
 * forgery and the backend divergence come back through `restoreKey`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { nobleBackend } from '../../../src/crypto/noble/index.js';
import { nodeBackend } from '../../../src/crypto/node/index.js';

const IDENTITY = Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]).toString('base64');
const FORGED = `vault:v1:${Buffer.concat([Buffer.from([1]), Buffer.alloc(63)]).toString('base64')}`;

async function craftedBackup(): Promise<string> {
  const t = new Transit({ crypto: nodeBackend, autoRotate: false });
  const ed = generateKeyPairSync('ed25519');
  const pem = ed.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  await t.importKey('pub', {
    type: 'ed25519',
    public_key: pem,
    exportable: true,
    allow_plaintext_backup: true,
  } as never);
  const { backup } = await t.backupKey('pub');
  const doc = JSON.parse(Buffer.from(backup, 'base64').toString('utf8'));
  doc.policy.keys['1'].public_key = IDENTITY;
  return Buffer.from(JSON.stringify(doc)).toString('base64');
}

describe('restore of an Ed25519 public key of small order', () => {
  it('is refused on both backends, as import refuses it', async () => {
    const backup = await craftedBackup();
    const results: Record<string, unknown> = {};
    for (const [name, crypto] of [
      ['node', nodeBackend],
      ['noble', nobleBackend],
    ] as const) {
      const t = new Transit({ crypto, autoRotate: false });
      try {
        await t.restoreKey({ backup, name: 'restored' });
      } catch (e) {
        results[name] = `refused: ${(e as { code?: string }).code}`;
        continue;
      }
      const input = Buffer.from('any message at all').toString('base64');
      results[name] = (await t.verify('restored', { input, signature: FORGED })).valid;
    }
    expect(results).toEqual({
      node: 'refused: invalid_request',
      noble: 'refused: invalid_request',
    });
  });
});
