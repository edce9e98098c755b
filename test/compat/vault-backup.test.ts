/**
 * Backups interchange with Vault: the docs backup blob (Vault 0.9 era)
 * restores and decrypts the fixture's ciphertext, and our backup of that key
 * carries every field of Vault's layout with the same values (reference §6).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { VAULT_ENTRY_FIELDS, VAULT_POLICY_FIELDS } from '../helpers/vault-backup-fields.js';
import { FIXTURES_DIR } from '../helpers/vectors.js';

interface BackupFixture {
  backup_b64: string;
  backup_json: string;
  key_name: string;
  computed: {
    plaintext_b64: string;
    ciphertext: string;
    hmac_by_algorithm: Record<string, string>;
  };
}
const fx = JSON.parse(
  readFileSync(path.join(FIXTURES_DIR, 'backup-docs-aes256.json'), 'utf8'),
) as BackupFixture;

const decode = (b64: string): string => Buffer.from(b64, 'base64').toString('utf8');

for (const [backendName, backend] of BACKENDS) {
  describe(`Vault backup blobs (${backendName})`, () => {
    it('restores the docs blob and decrypts and HMACs with it', async () => {
      const transit = new Transit({ crypto: backend, autoRotate: false });
      await transit.restoreKey({ backup: fx.backup_b64 });
      const { plaintext } = await transit.decrypt(fx.key_name, {
        ciphertext: fx.computed.ciphertext,
      });
      expect(plaintext).toBe(fx.computed.plaintext_b64);
      for (const [alg, expected] of Object.entries(fx.computed.hmac_by_algorithm)) {
        const r = await transit.hmac(fx.key_name, {
          input: fx.computed.plaintext_b64,
          algorithm: alg,
        });
        expect(r.hmac).toBe(expected);
      }
      const info = await transit.readKey(fx.key_name);
      expect(info).toMatchObject({ type: 'aes256-gcm96', latest_version: 1, exportable: false });
      expect(info.backup_info).toEqual({ time: '2017-12-08T11:50:29.228157-05:00', version: 1 });
      expect(info.restore_info?.version).toBe(1);
      expect(info.keys).toEqual({ '1': 1512751808 });
    });

    it('our backup of the restored key has Vault layout and the same values', async () => {
      const transit = new Transit({ crypto: backend, autoRotate: false });
      await transit.restoreKey({ backup: fx.backup_b64 });
      await transit.updateKeyConfig(fx.key_name, {
        exportable: true,
        allow_plaintext_backup: true,
      });
      const { backup } = await transit.backupKey(fx.key_name);
      const text = decode(backup);
      expect(text.endsWith('}\n')).toBe(true);
      const ours = JSON.parse(text) as {
        policy: Record<string, unknown>;
        archived_keys: { keys: Record<string, unknown>[] };
      };
      const theirs = JSON.parse(fx.backup_json) as typeof ours;
      expect(Object.keys(ours)).toEqual(['policy', 'archived_keys']);
      expect(Object.keys(ours.policy)).toEqual(VAULT_POLICY_FIELDS);
      for (const [field, value] of Object.entries(theirs.policy)) {
        if (field === 'backup_info' || field === 'restore_info' || field === 'exportable') continue;
        // Entries gained fields since 2017 (rsa_public_key, convergent_version): compare the old ones.
        if (field === 'keys') expect(ours.policy.keys, field).toMatchObject(value as object);
        else expect(ours.policy[field], field).toEqual(value);
      }
      const entry = (ours.policy.keys as Record<string, Record<string, unknown>>)['1'] ?? {};
      expect(Object.keys(entry)).toEqual(VAULT_ENTRY_FIELDS);
      expect(ours.archived_keys.keys).toHaveLength(2);
      expect(Object.keys(ours.archived_keys.keys[0] ?? {})).toEqual(VAULT_ENTRY_FIELDS);
      expect(ours.archived_keys.keys[0]).toMatchObject({
        key: null,
        time: '0001-01-01T00:00:00Z',
        creation_time: 0,
      });
      expect(ours.archived_keys.keys[1]).toMatchObject(theirs.archived_keys.keys[1] ?? {});
      expect(ours.policy.restore_info).not.toBeNull();
      // And the blob restores again, under another name.
      const other = new Transit({ crypto: backend, autoRotate: false });
      await other.restoreKey({ backup, name: 'copy' });
      expect((await other.decrypt('copy', { ciphertext: fx.computed.ciphertext })).plaintext).toBe(
        fx.computed.plaintext_b64,
      );
    });
  });
}

describe('backup JSON details', () => {
  it('sorts version keys as Go does and writes durations in nanoseconds', async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('k', {
      exportable: true,
      allow_plaintext_backup: true,
      auto_rotate_period: '2h',
    });
    for (let i = 0; i < 10; i++) await transit.rotateKey('k');
    const text = decode((await transit.backupKey('k')).backup);
    const keysJson = text.slice(text.indexOf('"keys":{') + 8);
    const order = [...keysJson.matchAll(/"(\d+)":\{"key"/g)].map((m) => m[1]).slice(0, 11);
    expect(order).toEqual(['1', '10', '11', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(text).toContain('"auto_rotate_period":7200000000000,');
  });

  it('legacy blobs are upgraded on restore (policy-level key, latest_version 0)', async () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const blob = Buffer.from(
      `${JSON.stringify({ policy: { name: 'old', key, type: 0, exportable: true } })}\n`,
    ).toString('base64');
    const transit = new Transit({ autoRotate: false });
    await transit.restoreKey({ backup: blob });
    const info = await transit.readKey('old');
    expect(info).toMatchObject({ latest_version: 1, min_decryption_version: 1 });
    const { ciphertext } = await transit.encrypt('old', { plaintext: 'aGk=' });
    expect((await transit.decrypt('old', { ciphertext })).plaintext).toBe('aGk=');
  });
});

describe('type integer dialects', () => {
  const blob = (type: number, keySize: number | undefined, keyBytes: number) => {
    const key = Buffer.alloc(keyBytes, 1).toString('base64');
    const policy: Record<string, unknown> = {
      name: 'd',
      type,
      latest_version: 1,
      min_decryption_version: 1,
      keys: {
        '1': { key, hmac_key: key, time: '2024-01-01T00:00:00Z', creation_time: 1704067200 },
      },
    };
    if (keySize !== undefined) policy.key_size = keySize;
    return Buffer.from(`${JSON.stringify({ policy })}\n`).toString('base64');
  };

  it('11 with key_size is Vault hmac; 11 without is OpenBao xchacha20; 10 with key_size is OpenBao hmac', async () => {
    const t = new Transit({ autoRotate: false });
    await t.restoreKey({ backup: blob(11, 48, 48), name: 'vault-hmac' });
    await t.restoreKey({ backup: blob(11, undefined, 32), name: 'bao-xchacha' });
    await t.restoreKey({ backup: blob(10, 64, 64), name: 'bao-hmac' });
    expect((await t.readKey('vault-hmac')).type).toBe('hmac');
    expect((await t.readKey('vault-hmac')).key_size).toBe(48);
    expect((await t.readKey('bao-xchacha')).type).toBe('xchacha20-poly1305');
    expect((await t.readKey('bao-hmac')).type).toBe('hmac');
  });

  it('our hmac and xchacha20 backups use 11 and are told apart by key_size', async () => {
    const t = new Transit({ autoRotate: false });
    const opts = { exportable: true, allow_plaintext_backup: true };
    await t.createKey('h', { type: 'hmac', key_size: 40, ...opts });
    await t.createKey('x', { type: 'xchacha20-poly1305', ...opts });
    const h = JSON.parse(decode((await t.backupKey('h')).backup)).policy;
    const x = JSON.parse(decode((await t.backupKey('x')).backup)).policy;
    expect([h.type, h.key_size]).toEqual([11, 40]);
    expect([x.type, x.key_size]).toEqual([11, undefined]);
  });

  it('10 without key_size (a Vault managed key) is refused', async () => {
    const t = new Transit({ autoRotate: false });
    await expect(t.restoreKey({ backup: blob(10, undefined, 32) })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('managed keys'),
    });
  });
});
