/**
 * import_version accepted a `public_key` for a derived
 * Ed25519 key (import refuses it, and so does Vault's ImportPublicOrPrivate
 * for both routes). The public-only version became the latest, and the key
 * could no longer sign.
 */
import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type MobilityPair, mobilityPair, wrapForImport } from './import-support.js';
import { b64 } from './support.js';

let pair: MobilityPair;
beforeAll(async () => {
  pair = await mobilityPair();
});

describe('import_version on a derived Ed25519 key', () => {
  it('refuses a public-only version, as import and Vault do', async () => {
    const [, t] = pair.engines[0] as MobilityPair['engines'][number];
    const first = generateKeyPairSync('ed25519');
    await t.importKey('ed-derived', {
      type: 'ed25519',
      derived: true,
      context: b64('ctx'),
      ciphertext: wrapForImport(
        pair.wrap,
        first.privateKey.export({ format: 'der', type: 'pkcs8' }),
      ),
    });
    const ok = await t.sign('ed-derived', { input: b64('fox'), context: b64('ctx') });
    expect(ok.signature).toMatch(/^vault:v1:/);

    const other = generateKeyPairSync('ed25519');
    const pem = other.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const outcome = await t.importKeyVersion('ed-derived', { public_key: pem }).then(
      () => 'accepted',
      (e: Error) => e.message,
    );
    const after = await t.readKey('ed-derived');
    const sign = await t.sign('ed-derived', { input: b64('fox'), context: b64('ctx') }).then(
      (r) => r.signature.slice(0, 9),
      (e: Error) => e.message,
    );
    expect({ outcome, latest: after.latest_version, sign }).toEqual({
      outcome: expect.stringMatching(/derived Ed25519/),
      latest: 1,
      sign: 'vault:v1:',
    });
  });
});
