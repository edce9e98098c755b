/**
 * Backup and restore rules: preconditions, names, force, every key type and
 * shape round-trips (derived, convergent, archived and trimmed versions), and
 * garbage is refused without leaving anything behind.
 */

import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { HOT_VERSIONS } from '../../src/keys/policy-store.js';
import { expectError } from './support.js';

const FOX = 'dGhlIHF1aWNrIGJyb3duIGZveA==';
const OPEN = { exportable: true, allow_plaintext_backup: true } as const;
const engine = () => new Transit({ autoRotate: false });

describe('backupKey', () => {
  it('requires exportable and allow_plaintext_backup; missing keys are not_found', async () => {
    const t = engine();
    await t.createKey('closed');
    await expect(t.backupKey('closed')).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'exporting is disallowed on the policy',
    });
    await t.updateKeyConfig('closed', { exportable: true });
    await expect(t.backupKey('closed')).rejects.toMatchObject({
      message: 'plaintext backup is disallowed on the policy',
    });
    await expect(t.backupKey('nope')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('backs up a soft-deleted key (spec: still allowed); it restores soft-deleted, then revives', async () => {
    const t = engine();
    await t.createKey('soft', OPEN);
    const { ciphertext } = await t.encrypt('soft', { plaintext: FOX });
    await t.softDeleteKey('soft');
    const { backup } = await t.backupKey('soft');
    const policy = JSON.parse(Buffer.from(backup, 'base64').toString()).policy;
    expect(policy.soft_deleted).toBe(true);
    expect(policy.backup_info.version).toBe(1);
    const b = engine();
    await b.restoreKey({ backup });
    expect((await b.readKey('soft')).soft_deleted).toBe(true);
    await expect(b.decrypt('soft', { ciphertext })).rejects.toMatchObject({
      message: 'refusing to use soft-deleted key',
    });
    await b.restoreSoftDeletedKey('soft');
    expect((await b.decrypt('soft', { ciphertext })).plaintext).toBe(FOX);
    // the soft-deleted original still needs exportable and allow_plaintext_backup
    await t.createKey('closed-soft');
    await t.softDeleteKey('closed-soft');
    await expect(t.backupKey('closed-soft')).rejects.toMatchObject({
      message: 'exporting is disallowed on the policy',
    });
  });

  it('records backup_info on the key before serialising', async () => {
    const t = new Transit({
      autoRotate: false,
      clock: { now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 600) },
    });
    await t.createKey('k', OPEN);
    const policy = JSON.parse(
      Buffer.from((await t.backupKey('k')).backup, 'base64').toString(),
    ).policy;
    expect(policy.backup_info).toEqual({ time: '2026-01-02T03:04:05.6Z', version: 1 });
    expect((await t.readKey('k')).backup_info).toEqual(policy.backup_info);
  });
});

describe('backupKey racing another instance', () => {
  /** Memory storage that runs `hook` once, before the first archive read after it is set. */
  class Hooked extends MemoryStorage {
    hook: (() => Promise<void>) | undefined;
    override async get(key: string): Promise<Uint8Array | undefined> {
      const hook = key.startsWith('transit/archive/') ? this.hook : undefined;
      if (hook) {
        this.hook = undefined;
        await hook();
      }
      return super.get(key);
    }
  }
  const VERSIONS = HOT_VERSIONS + 4;
  const setup = async () => {
    const storage = new Hooked();
    // A third instance writes the key, so neither a nor b holds its archived versions.
    const writer = new Transit({ storage, autoRotate: false });
    await writer.createKey('k', OPEN);
    for (let v = 2; v <= VERSIONS; v++) await writer.rotateKey('k');
    await writer.close();
    const a = new Transit({ storage, autoRotate: false });
    const b = new Transit({ storage, autoRotate: false });
    return { storage, a, b };
  };

  it('a trim on another instance between the read and the archived versions: the backup is of the key as trimmed', async () => {
    const { storage, a, b } = await setup();
    await b.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 3 });
    storage.hook = async () => {
      await b.trimKey('k', { min_available_version: 3 });
    };
    const { backup } = await a.backupKey('k');
    expect(storage.hook).toBeUndefined();
    const blob = JSON.parse(Buffer.from(backup, 'base64').toString());
    expect(blob.policy.min_available_version).toBe(3);
    expect(
      Object.keys(blob.policy.keys)
        .map(Number)
        .sort((x, y) => x - y)[0],
    ).toBe(3);
    const c = new Transit({ autoRotate: false });
    await c.restoreKey({ backup, name: 'copy' });
    const { ciphertext } = await b.encrypt('k', { plaintext: FOX, key_version: 3 });
    expect((await c.decrypt('copy', { ciphertext })).plaintext).toBe(FOX);
  });

  it('a delete on another instance meanwhile: not_found; a missing entry with the key unchanged stays internal', async () => {
    const { storage, a, b } = await setup();
    await b.updateKeyConfig('k', { deletion_allowed: true });
    storage.hook = async () => {
      await b.deleteKey('k');
    };
    await expect(a.backupKey('k')).rejects.toMatchObject({ code: 'not_found' });
    const other = await setup();
    const entry = (await other.storage.list('transit/archive/k/'))[0] as string;
    await other.storage.delete(`transit/archive/k/${entry}`);
    await expect(other.a.backupKey('k')).rejects.toMatchObject({
      code: 'internal',
      message: expect.stringContaining('is missing from storage'),
    });
  });
});

describe('round trips', () => {
  const shapes = [
    { type: 'aes128-gcm96' },
    { type: 'aes256-gcm96', derived: true },
    { type: 'chacha20-poly1305', derived: true, convergent_encryption: true },
    { type: 'xchacha20-poly1305', derived: true, convergent_encryption: true },
  ] as const;
  for (const shape of shapes) {
    it(`${JSON.stringify(shape)} with archived and trimmed versions`, async () => {
      const a = engine();
      await a.createKey('k', { ...shape, ...OPEN });
      const context = 'Y3R4';
      const cts: string[] = [];
      for (let i = 0; i < HOT_VERSIONS + 5; i++) {
        cts.push((await a.encrypt('k', { plaintext: FOX, context })).ciphertext);
        await a.rotateKey('k');
      }
      await a.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 4 });
      await a.trimKey('k', { min_available_version: 3 });
      const { backup } = await a.backupKey('k');
      const b = engine();
      await b.restoreKey({ backup });
      for (const [i, ciphertext] of cts.entries()) {
        if (i + 1 < 3) continue;
        expect((await b.decrypt('k', { ciphertext, context })).plaintext).toBe(FOX);
      }
      const ia = await a.readKey('k');
      const ib = await b.readKey('k');
      expect({ ...ib, restore_info: undefined }).toEqual({ ...ia, restore_info: undefined });
      if ('convergent_encryption' in shape) {
        const x = await a.encrypt('k', { plaintext: FOX, context });
        expect((await b.encrypt('k', { plaintext: FOX, context })).ciphertext).toBe(x.ciphertext);
      }
    });
  }

  it('hmac keys keep their secrets and key_size', async () => {
    const a = engine();
    await a.createKey('h', { type: 'hmac', key_size: 100, ...OPEN });
    await a.rotateKey('h');
    const v1 = await a.hmac('h', { input: FOX, key_version: 1 });
    const b = engine();
    await b.restoreKey({ backup: (await a.backupKey('h')).backup });
    expect((await b.hmac('h', { input: FOX, key_version: 1 })).hmac).toBe(v1.hmac);
    expect((await b.readKey('h')).key_size).toBe(100);
  });
});

describe('restoreKey', () => {
  it('a key restored at the highest version number takes no rotation past it', async () => {
    const t = new Transit({ autoRotate: false });
    const k32 = Buffer.alloc(32, 1).toString('base64');
    const entry = { key: k32, hmac_key: k32, time: '2024-01-01T00:00:00Z', creation_time: 1 };
    const top = 2 ** 31 - 1;
    const policy = { name: 'x', type: 0, keys: {}, latest_version: top };
    const blob = {
      policy: { ...policy, min_available_version: top, min_decryption_version: top },
      archived_keys: { keys: [entry] },
    };
    await t.restoreKey({ backup: Buffer.from(JSON.stringify(blob)).toString('base64') });
    const ct = (await t.encrypt('x', { plaintext: 'aGk=' })).ciphertext;
    expect(ct.startsWith(`vault:v${top}:`)).toBe(true);
    await expectError(t.rotateKey('x'), 'invalid_request', /the highest a key can reach/);
    expect((await t.readKey('x')).latest_version).toBe(top);
    await t.close();
  });

  it('refuses an existing name unless force, and renames with name', async () => {
    const t = engine();
    await t.createKey('k', OPEN);
    const { ciphertext } = await t.encrypt('k', { plaintext: FOX });
    const { backup } = await t.backupKey('k');
    await expect(t.restoreKey({ backup })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'key "k" already exists',
    });
    await t.restoreKey({ backup, name: 'k2' });
    expect((await t.decrypt('k2', { ciphertext })).plaintext).toBe(FOX);
    await t.rotateKey('k');
    await t.restoreKey({ backup, force: true });
    expect((await t.readKey('k')).latest_version).toBe(1);
    expect((await t.decrypt('k', { ciphertext })).plaintext).toBe(FOX);
    await expect(t.restoreKey({ backup, name: 'a/b' })).rejects.toMatchObject({
      message: 'key names cannot be paths',
    });
  });

  it('refuses garbage with invalid_request and stores nothing', async () => {
    const storage = new MemoryStorage();
    const t = new Transit({ storage, autoRotate: false });
    const json = (v: unknown) => Buffer.from(`${JSON.stringify(v)}\n`).toString('base64');
    const k32 = Buffer.alloc(32, 1).toString('base64');
    const entry = { key: k32, hmac_key: k32, time: 'x', creation_time: 1 };
    const bad: unknown[] = [
      undefined,
      '',
      42,
      'not base64!',
      Buffer.from('not json').toString('base64'),
      json([1, 2]),
      json({}),
      json({ policy: 'x' }),
      json({ policy: { name: 'x', type: 99, keys: { '1': entry } } }),
      json({ policy: { name: 'x', type: 0, latest_version: 2, keys: { '1': entry } } }),
      json({ policy: { name: 'x', type: 8, keys: { '1': entry } } }),
      json({ policy: { name: 'x', type: 0, kdf: 7, keys: { '1': entry } } }),
      json({ policy: { name: 'x', type: 0, latest_version: 'one', keys: { '1': entry } } }),
      json({ policy: { name: 'x', type: 0, keys: { '1': { ...entry, key: 'AA' } } } }),
      json({ policy: { name: 'x', type: 0, min_decryption_version: 5, keys: { '1': entry } } }),
      // A version number past the highest a key can reach (rotate would loop on 2^53).
      ...[2 ** 31, Number.MAX_SAFE_INTEGER].map((top) =>
        json({
          policy: {
            name: 'x',
            type: 0,
            keys: {},
            latest_version: top,
            min_available_version: top,
            min_decryption_version: top,
          },
          archived_keys: { keys: [entry] },
        }),
      ),
      json({ policy: { name: 'bad name!', type: 0, keys: { '1': entry } } }),
      Buffer.from([0xff, 0xfe, 0x00]).toString('base64'),
    ];
    for (const backup of bad) {
      await expect(t.restoreKey({ backup } as never), String(backup)).rejects.toMatchObject({
        code: 'invalid_request',
      });
    }
    expect(await storage.list('')).toEqual([]);
  });
});
