/**
 * Key lifecycle through the public API: delete, soft-delete and restore (spec
 * "Named key" states table and Errors 3, 9).
 */

import { TransitError, warningsOf } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { b64, expectError, makeEngine, reasonOf, snapshot } from './support.js';

describe('deleteKey', () => {
  it('is refused while deletion_allowed is false', async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('k');
    const before = await snapshot(storage);
    await expectError(
      transit.deleteKey('k'),
      'invalid_request',
      'error deleting policy k: deletion is not allowed for this key',
    );
    expect(await snapshot(storage)).toEqual(before);
    expect((await transit.readKey('k')).name).toBe('k');
  });

  it('deletes every version once allowed; its data can no longer be decrypted', async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('k');
    for (let i = 0; i < 20; i++) await transit.rotateKey('k'); // some versions archived
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('gone'), key_version: 1 });
    await transit.createKey('other');
    const otherEntries = Object.keys(await snapshot(storage)).filter(
      (k) => !k.includes('/k/') && !k.endsWith('/k'),
    );

    await transit.updateKeyConfig('k', { deletion_allowed: true });
    await transit.deleteKey('k');

    await expectError(transit.readKey('k'), 'not_found');
    expect((await transit.listKeys()).keys).toEqual(['other']);
    await expectError(
      transit.decrypt('k', { ciphertext }),
      'invalid_request',
      'encryption key not found',
    );
    // nothing of the deleted key is left in storage
    expect(Object.keys(await snapshot(storage)).sort()).toEqual(otherEntries.sort());

    // a new key under the same name is a different key
    await transit.createKey('k');
    const e = await expectError(transit.decrypt('k', { ciphertext }), 'invalid_request');
    expect(e.message).not.toBe('');
    expect((await transit.readKey('k')).latest_version).toBe(1);
  });

  it('is refused for a missing key', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.deleteKey('nope'),
      'invalid_request',
      'error deleting policy nope: could not delete key; not found',
    );
  });

  it('deletion_allowed can be turned off again', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    expect((await transit.updateKeyConfig('k', { deletion_allowed: true })).deletion_allowed).toBe(
      true,
    );
    expect((await transit.updateKeyConfig('k', { deletion_allowed: false })).deletion_allowed).toBe(
      false,
    );
    await expectError(transit.deleteKey('k'), 'invalid_request', /deletion is not allowed/);
  });

  it('a soft-deleted key still needs deletion_allowed and can then be deleted', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await transit.softDeleteKey('k');
    await expectError(transit.deleteKey('k'), 'invalid_request', /deletion is not allowed/);
    await transit.updateKeyConfig('k', { deletion_allowed: true });
    await transit.deleteKey('k');
    await expectError(transit.readKey('k'), 'not_found');
  });
});

describe('soft delete', () => {
  const SOFT = 'refusing to use soft-deleted key';

  async function softDeleted() {
    const eng = makeEngine();
    const { transit } = eng;
    await transit.createKey('k');
    await transit.createKey('h', { type: 'hmac' });
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('secret') });
    const { hmac } = await transit.hmac('k', { input: b64('m') });
    const hmacH = (await transit.hmac('h', { input: b64('m') })).hmac;
    const info = await transit.softDeleteKey('k');
    await transit.softDeleteKey('h');
    return { ...eng, ciphertext, hmac, hmacH, info };
  }

  it('returns the read body with soft_deleted true; repeating warns', async () => {
    const { transit, info } = await softDeleted();
    expect(info.soft_deleted).toBe(true);
    expect(warningsOf(info)).toEqual([]);
    const again = await transit.softDeleteKey('k');
    expect(again.soft_deleted).toBe(true);
    expect(warningsOf(again)).toEqual(['key was already marked as soft deleted']);
  });

  it('refuses encrypt, decrypt, rewrap, datakey, hmac, verify and rotate', async () => {
    const { transit, storage, ciphertext, hmac, hmacH } = await softDeleted();
    const before = await snapshot(storage);
    await expectError(transit.encrypt('k', { plaintext: b64('x') }), 'invalid_request', SOFT);
    // batch form: refused as a whole, or the item carries the error and no ciphertext
    const batch = await transit.encrypt('k', { batch_input: [{ plaintext: b64('x') }] }).then(
      (r) => r.batch_results[0],
      (e: unknown) => e,
    );
    if (batch instanceof TransitError) {
      expect(batch.code).toBe('invalid_request');
      expect(batch.message).toBe(SOFT);
    } else {
      expect(batch).toMatchObject({ error: SOFT, reference: '' });
      expect(batch).not.toHaveProperty('ciphertext');
    }
    await expectError(transit.decrypt('k', { ciphertext }), 'invalid_request', SOFT);
    await expectError(transit.rewrap('k', { ciphertext }), 'invalid_request', SOFT);
    await expectError(transit.generateDataKey('k', 'plaintext'), 'invalid_request', SOFT);
    await expectError(transit.generateDataKey('k', 'wrapped'), 'invalid_request', SOFT);
    await expectError(transit.hmac('k', { input: b64('m') }), 'invalid_request', SOFT);
    await expectError(transit.hmac('h', { input: b64('m') }), 'invalid_request', SOFT);
    await expectError(transit.verify('k', { input: b64('m'), hmac }), 'invalid_request', SOFT);
    await expectError(
      transit.verify('h', { input: b64('m'), hmac: hmacH }),
      'invalid_request',
      SOFT,
    );
    await expectError(transit.rotateKey('k'), 'invalid_request', SOFT);
    expect(await snapshot(storage)).toEqual(before);
  });

  it('encrypt with upsert does not replace a soft-deleted key', async () => {
    const { transit, storage } = await softDeleted();
    const before = await snapshot(storage);
    await expectError(
      transit.encrypt('k', { plaintext: b64('x'), type: 'chacha20-poly1305' }),
      'invalid_request',
      SOFT,
    );
    expect(await snapshot(storage)).toEqual(before);
    expect((await transit.readKey('k')).type).toBe('aes256-gcm96');
  });

  it('still allows read, config and list', async () => {
    const { transit } = await softDeleted();
    expect((await transit.readKey('k')).soft_deleted).toBe(true);
    const cfg = await transit.updateKeyConfig('k', {
      deletion_allowed: true,
      auto_rotate_period: '1h',
    });
    expect(cfg).toMatchObject({
      soft_deleted: true,
      deletion_allowed: true,
      auto_rotate_period: 3600,
    });
    expect((await transit.listKeys()).keys).toEqual(['h', 'k']);
  });

  it('restore brings the key back with its data', async () => {
    const { transit, ciphertext, hmac } = await softDeleted();
    const restored = await transit.restoreSoftDeletedKey('k');
    expect(restored.soft_deleted).toBe(false);
    expect(warningsOf(restored)).toEqual([]);
    expect((await transit.decrypt('k', { ciphertext })).plaintext).toBe(b64('secret'));
    expect(await transit.verify('k', { input: b64('m'), hmac })).toEqual({ valid: true });
    expect((await transit.rotateKey('k')).latest_version).toBe(2);
    const again = await transit.restoreSoftDeletedKey('k');
    expect(warningsOf(again)).toEqual(['key was already restored']);
    expect(again.soft_deleted).toBe(false);
  });

  it('soft delete and restore of a missing key fail', async () => {
    const { transit, storage } = makeEngine();
    for (const call of [
      () => transit.softDeleteKey('nope'),
      () => transit.restoreSoftDeletedKey('nope'),
    ]) {
      const e = await reasonOf(call);
      expect(e).toBeInstanceOf(TransitError);
      expect(['not_found', 'invalid_request']).toContain((e as TransitError).code);
    }
    expect(await snapshot(storage)).toEqual({});
  });
});
