/**
 * Backup and restore of asymmetric keys (reference §6): every type, made and
 * backed up on one backend, restored under a new name on the other; old
 * signatures verify, new ones verify back, old RSA ciphertexts decrypt, the
 * read bodies agree. Also public-only imported versions, derived Ed25519 and
 * certificate chains.
 */
import { generateKeyPairSync } from 'node:crypto';
import { MemoryStorage, Transit } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { putKnownKey, rsaMaterial } from '../helpers/known-key.js';
import { SIGNING_TYPES } from './asym-support.js';
import { b64, expectError } from './support.js';

const FOX = b64('the quick brown fox');
const OPEN = { exportable: true, allow_plaintext_backup: true } as const;
let storage: MemoryStorage;
let node: Transit;

beforeAll(async () => {
  storage = new MemoryStorage();
  node = new Transit({ storage, crypto: nodeBackend, autoRotate: false });
  for (const type of SIGNING_TYPES) {
    if (type === 'rsa-3072' || type === 'rsa-4096') {
      const bits = type === 'rsa-3072' ? 3072 : 4096;
      const asymmetric = rsaMaterial(wycheproofRsa(bits));
      await putKnownKey(storage, type, [{ key: new Uint8Array(0), asymmetric }], {
        type,
        ...OPEN,
      });
    } else {
      await node.createKey(type, { type, ...OPEN });
      await node.rotateKey(type);
    }
  }
});

const restored = () => new Transit({ crypto: nobleBackend, autoRotate: false });
const json = (backup: string) => JSON.parse(Buffer.from(backup, 'base64').toString('utf8'));

describe('every signing type round-trips through a backup', () => {
  for (const type of SIGNING_TYPES) {
    it(type, async () => {
      const latest = (await node.readKey(type)).latest_version;
      const sigs: string[] = [];
      for (let v = 1; v <= latest; v++) {
        sigs.push((await node.sign(type, { input: FOX, key_version: v })).signature);
      }
      const cts = type.startsWith('rsa')
        ? [(await node.encrypt(type, { plaintext: FOX })).ciphertext]
        : [];
      const { backup } = await node.backupKey(type);
      const other = restored();
      await other.restoreKey({ backup, name: `${type}-copy` });
      for (const signature of sigs) {
        expect((await other.verify(`${type}-copy`, { input: FOX, signature })).valid).toBe(true);
      }
      for (const ciphertext of cts) {
        expect((await other.decrypt(`${type}-copy`, { ciphertext })).plaintext).toBe(FOX);
      }
      const fresh = (await other.sign(`${type}-copy`, { input: FOX })).signature;
      expect((await node.verify(type, { input: FOX, signature: fresh })).valid).toBe(true);
      const a = await node.readKey(type);
      const b = await other.readKey(`${type}-copy`);
      expect(b.keys).toEqual(a.keys);
      expect(b).toMatchObject({ type, latest_version: latest, exportable: true });
      // Our own blob of the restored key is the same blob, apart from bookkeeping.
      const again = json((await other.backupKey(`${type}-copy`)).backup);
      const first = json(backup);
      expect(again.policy.keys).toEqual(first.policy.keys);
      expect(again.archived_keys).toEqual(first.archived_keys);
    });
  }

  it('derived ed25519: the same context gives the same key and signature after restore', async () => {
    await node.createKey('ed-derived', { type: 'ed25519', derived: true, ...OPEN });
    const context = b64('tenant-1');
    const { signature } = await node.sign('ed-derived', { input: FOX, context });
    const other = restored();
    await other.restoreKey({ backup: (await node.backupKey('ed-derived')).backup });
    expect((await other.sign('ed-derived', { input: FOX, context })).signature).toBe(signature);
    expect(await other.readKey('ed-derived', { context })).toEqual(
      expect.objectContaining({ keys: (await node.readKey('ed-derived', { context })).keys }),
    );
  });
});

describe('public-only versions and certificate chains', () => {
  it('public-only imports stay public-only: verify works, signing is refused', async () => {
    const t = new Transit({ autoRotate: false });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ed = generateKeyPairSync('ed25519');
    const pem = (k: typeof ec) => k.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const cases = [
      ['ecdsa-p384', ec],
      ['rsa-2048', rsa],
      ['ed25519', ed],
    ] as const;
    for (const [type, k] of cases) {
      await t.importKey(`pub-${type}`, { type, public_key: pem(k), ...OPEN });
      const { backup } = await t.backupKey(`pub-${type}`);
      const entry = json(backup).policy.keys['1'];
      expect(entry).toMatchObject({ key: null, ec_d: null, rsa_key: null });
      expect(json(backup).policy.Imported).toBe(true);
      const other = restored();
      await other.restoreKey({ backup });
      expect((await other.readKey(`pub-${type}`)).keys).toEqual(
        (await t.readKey(`pub-${type}`)).keys,
      );
      await expectError(
        other.sign(`pub-${type}`, { input: FOX }),
        'invalid_request',
        /private part/,
      );
    }
  });

  it('a certificate chain travels with its version', async () => {
    const chain = [new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01]), new Uint8Array([0x30, 0x00])];
    const s = new MemoryStorage();
    const priv = wycheproofRsa(2048);
    await putKnownKey(
      s,
      'certified',
      [{ key: new Uint8Array(0), asymmetric: rsaMaterial(priv), certificate_chain: chain }],
      { type: 'rsa-2048', ...OPEN },
    );
    const t = new Transit({ storage: s, autoRotate: false });
    const { backup } = await t.backupKey('certified');
    expect(json(backup).policy.keys['1'].certificate_chain).toEqual(['MAMCAQE=', 'MAA=']);
    const other = restored();
    await other.restoreKey({ backup });
    const ex = (k: Transit) => k.exportKey('certificate-chain', 'certified', 1);
    expect(await ex(other)).toEqual(await ex(t));
  });
});
