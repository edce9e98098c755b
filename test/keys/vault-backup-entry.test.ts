/**
 * The `KeyEntry` codec of Vault backups for asymmetric keys
 * (src/keys/vault-backup-entry.ts, reference §0.2 and §6): Go field order,
 * bare decimal big integers, Go's `rsa.PrivateKey` struct; a Vault-style
 * blob hand-built from the fixed ECDSA keys of Vault's tests restores and
 * verifies Vault's signatures; an RSA blob without `Precomputed` gets its CRT
 * values recomputed; inconsistent material is refused as `invalid backup`
 * and leaves nothing behind.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { BACKENDS } from '../helpers/backends.js';
import { VAULT_ENTRY_FIELDS } from '../helpers/vault-backup-fields.js';
import { FIXTURES_DIR } from '../helpers/vectors.js';
import { expectRefusedCleanly } from '../transit/import-support.js';

const OPEN = { exportable: true, allow_plaintext_backup: true } as const;
const FOX = Buffer.from('the quick brown fox').toString('base64');
const HMAC = Buffer.alloc(32, 9).toString('base64');
const text = (backup: string) => Buffer.from(backup, 'base64').toString('utf8');
const blob = (json: string) => Buffer.from(`${json}\n`).toString('base64');

/** A Vault 1.14-style blob with one version whose entry fields are given as raw JSON. */
function vaultBlob(type: number, entry: string, key = 'null'): string {
  const e = `{"key":${key},"hmac_key":"${HMAC}","time":"2024-05-01T10:11:12.123456789Z",${entry},"convergent_version":0,"creation_time":1714558272}`;
  return blob(
    `{"policy":{"name":"k","keys":{"1":${e}},"derived":false,"kdf":0,"convergent_encryption":false,"exportable":true,"min_decryption_version":1,"min_encryption_version":0,"latest_version":1,"archive_version":1,"archive_min_version":0,"min_available_version":0,"deletion_allowed":false,"convergent_version":0,"type":${type},"backup_info":null,"restore_info":null,"allow_plaintext_backup":true,"version_template":"","storage_prefix":"","auto_rotate_period":0,"Imported":false,"AllowImportedKeyRotation":false},"archived_keys":{"keys":[{"key":null,"hmac_key":null,"time":"0001-01-01T00:00:00Z","ec_x":null,"ec_y":null,"ec_d":null,"rsa_key":null,"rsa_public_key":null,"public_key":"","convergent_version":0,"creation_time":0},${e}]}}`,
  );
}

interface EcFixture {
  key_type: string;
  x_decimal: string;
  y_decimal: string;
  d_decimal: string;
  public_key_pem: string;
  signature: string;
}
const ecFixtures = (
  JSON.parse(readFileSync(path.join(FIXTURES_DIR, 'ecdsa-fixed-keys.json'), 'utf8')) as {
    keys: EcFixture[];
  }
).keys;
const VAULT_ID: Record<string, number> = { 'ecdsa-p256': 1, 'ecdsa-p384': 6, 'ecdsa-p521': 7 };
const ecEntry = (k: EcFixture, d = k.d_decimal) =>
  `"ec_x":${k.x_decimal},"ec_y":${k.y_decimal},"ec_d":${d},"rsa_key":null,"rsa_public_key":null,"public_key":${JSON.stringify(k.public_key_pem)}`;

describe('writing', () => {
  it('asymmetric entries keep Go field order and bare integers', async () => {
    const t = new Transit({ autoRotate: false });
    for (const type of ['ecdsa-p256', 'ed25519', 'rsa-2048'] as const) {
      await t.createKey(type, { type, ...OPEN });
    }
    const ec = text((await t.backupKey('ecdsa-p256')).backup);
    expect(ec).toMatch(/"ec_x":[0-9]+,"ec_y":[0-9]+,"ec_d":[0-9]+,"rsa_key":null/);
    const rsa = text((await t.backupKey('rsa-2048')).backup);
    expect(rsa).toMatch(
      /"rsa_key":\{"N":[0-9]+,"E":65537,"D":[0-9]+,"Primes":\[[0-9]+,[0-9]+\],"Precomputed":\{"Dp":[0-9]+,"Dq":[0-9]+,"Qinv":[0-9]+,"CRTValues":\[\]\}\},"rsa_public_key":\{"N":[0-9]+,"E":65537\},"public_key":""/,
    );
    const ed = JSON.parse(text((await t.backupKey('ed25519')).backup));
    for (const backup of [ec, rsa]) {
      const j = JSON.parse(backup);
      expect(Object.keys(j.policy.keys['1'])).toEqual(VAULT_ENTRY_FIELDS);
      expect(Object.keys(j.archived_keys.keys[0])).toEqual(VAULT_ENTRY_FIELDS);
    }
    const edEntry = ed.policy.keys['1'];
    expect(Buffer.from(edEntry.key, 'base64')).toHaveLength(64);
    expect(Buffer.from(edEntry.key, 'base64').subarray(32).toString('base64')).toBe(
      edEntry.public_key,
    );
  });
});

for (const [backendName, backend] of BACKENDS) {
  describe(`reading Vault-style blobs (${backendName})`, () => {
    it("Vault's fixed ECDSA keys restore and verify Vault's OpenSSL signatures", async () => {
      const t = new Transit({ crypto: backend, autoRotate: false });
      for (const k of ecFixtures) {
        await t.restoreKey({
          backup: vaultBlob(VAULT_ID[k.key_type] as number, ecEntry(k)),
          name: k.key_type,
        });
        const info = await t.readKey(k.key_type);
        expect(info.type).toBe(k.key_type);
        expect((info.keys as Record<string, { public_key: string }>)['1']?.public_key).toBe(
          k.public_key_pem,
        );
        const r = await t.verify(k.key_type, { input: FOX, signature: k.signature });
        expect(r.valid).toBe(true);
        const { signature } = await t.sign(k.key_type, { input: FOX });
        expect((await t.verify(k.key_type, { input: FOX, signature })).valid).toBe(true);
      }
    });

    it('an RSA key without Precomputed (CRTValues null) gets its CRT values recomputed', async () => {
      const k = wycheproofRsa(2048);
      const entry = `"ec_x":null,"ec_y":null,"ec_d":null,"rsa_key":{"N":${k.n},"E":${k.e},"D":${k.d},"Primes":[${k.p},${k.q}],"Precomputed":{"CRTValues":null}},"rsa_public_key":null,"public_key":""`;
      const t = new Transit({ crypto: backend, autoRotate: false });
      await t.restoreKey({ backup: vaultBlob(3, entry), name: 'rsa' });
      const { ciphertext } = await t.encrypt('rsa', { plaintext: FOX });
      expect((await t.decrypt('rsa', { ciphertext })).plaintext).toBe(FOX);
      const out = text((await t.backupKey('rsa')).backup);
      expect(out).toContain(
        `"Precomputed":{"Dp":${k.dp},"Dq":${k.dq},"Qinv":${k.qi},"CRTValues":[]}`,
      );
    });
  });
}

describe('inconsistent material is refused and leaves nothing', () => {
  const k = ecFixtures[0] as EcFixture;
  const rsa = wycheproofRsa(2048);
  const rsaEntry = (d: bigint, primes = `${rsa.p},${rsa.q}`) =>
    `"ec_x":null,"ec_y":null,"ec_d":null,"rsa_key":{"N":${rsa.n},"E":65537,"D":${d},"Primes":[${primes}]},"rsa_public_key":null,"public_key":""`;
  const ed = (key: string, pub: string) =>
    vaultBlob(
      2,
      `"ec_x":null,"ec_y":null,"ec_d":null,"rsa_key":null,"rsa_public_key":null,"public_key":"${pub}"`,
      JSON.stringify(key),
    );
  const seed = Buffer.alloc(32, 1);
  const cases: [string, string, RegExp][] = [
    ['ec_d of another key', vaultBlob(1, ecEntry(k, '12345')), /'ec_d' does not match/],
    ['point off the curve', vaultBlob(1, ecEntry({ ...k, y_decimal: '5' })), /not a point of P256/],
    ['P-256 point as P-384', vaultBlob(6, ecEntry(k)), /not a point of P384/],
    [
      'wrong public_key PEM',
      vaultBlob(1, ecEntry({ ...k, public_key_pem: (ecFixtures[1] as EcFixture).public_key_pem })),
      /does not match/,
    ],
    ['RSA D inconsistent', vaultBlob(3, rsaEntry(rsa.d + 2n)), /inconsistent key values/],
    [
      'RSA three primes',
      vaultBlob(3, rsaEntry(rsa.d, `${rsa.p},${rsa.q},3`)),
      /exactly two primes/,
    ],
    ['RSA-2048 as rsa-4096', vaultBlob(4, rsaEntry(rsa.d)), /not 4096 bits/],
    [
      'no material at all',
      vaultBlob(
        1,
        '"ec_x":null,"ec_y":null,"ec_d":null,"rsa_key":null,"rsa_public_key":null,"public_key":"x"',
      ),
      /ec_x/,
    ],
    [
      'ed25519 key vs public key',
      ed(
        Buffer.concat([seed, Buffer.alloc(32)]).toString('base64'),
        Buffer.alloc(32).toString('base64'),
      ),
      /does not match its public key/,
    ],
    ['ed25519 short key', ed(seed.toString('base64'), ''), /must be 64 bytes/],
  ];
  for (const [what, backup, message] of cases) {
    it(what, async () => {
      const storage = new MemoryStorage();
      const t = new Transit({ storage, autoRotate: false });
      await expectRefusedCleanly(t, storage, () => t.restoreKey({ backup, name: 'bad' }), message, [
        seed,
      ]);
    });
  }
});
