/**
 * Key lifecycle through the public API: create, read, list, delete,
 * soft-delete and restore (spec "Named key" states table and Errors 3, 9;
 * reference §9, §15).
 */
import { MAX_KEY_NAME_LENGTH, TransitError, warningsOf } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { FAKE_CLOCK_START } from '../helpers/fake-clock.js';
import {
  b64,
  expectError,
  makeEngine,
  reasonOf,
  SYMMETRIC_TYPES,
  settle,
  snapshot,
  unb64,
} from './support.js';

const START_S = Math.floor(FAKE_CLOCK_START / 1000);

describe('createKey', () => {
  it('creates an aes256-gcm96 key with the documented defaults', async () => {
    const { transit } = makeEngine();
    const info = await transit.createKey('orders');
    expect(warningsOf(info)).toEqual([]);
    expect(info).toMatchObject({
      name: 'orders',
      type: 'aes256-gcm96',
      derived: false,
      deletion_allowed: false,
      exportable: false,
      allow_plaintext_backup: false,
      min_available_version: 0,
      min_decryption_version: 1,
      min_encryption_version: 0,
      latest_version: 1,
      supports_encryption: true,
      supports_decryption: true,
      supports_derivation: true,
      supports_signing: false,
      auto_rotate_period: 0,
      imported: false,
      imported_key: false,
      soft_deleted: false,
      keys: { '1': START_S },
    });
    expect(info.key_size).toBeUndefined();
    expect(info.kdf).toBeUndefined();
    expect(info.convergent_encryption).toBeUndefined();
    expect(await transit.readKey('orders')).toEqual(info);
  });

  it.each(SYMMETRIC_TYPES)('creates a %s key', async (type) => {
    const { transit } = makeEngine();
    const info = await transit.createKey('k', { type });
    expect(info.type).toBe(type);
    expect(info.supports_encryption).toBe(true);
    expect(info.supports_decryption).toBe(true);
    expect(info.supports_derivation).toBe(true);
    expect(info.supports_signing).toBe(false);
    expect(Object.keys(info.keys)).toEqual(['1']);
  });

  it('records the clock time of version 1 in keys', async () => {
    const { transit, clock } = makeEngine();
    clock.advance(12_345_000);
    const info = await transit.createKey('k');
    expect(info.keys).toEqual({ '1': START_S + 12_345 });
  });

  it('stores derived, convergent, exportable and allow_plaintext_backup', async () => {
    const { transit } = makeEngine();
    const info = await transit.createKey('k', {
      derived: true,
      convergent_encryption: true,
      exportable: true,
      allow_plaintext_backup: true,
    });
    expect(info).toMatchObject({
      derived: true,
      exportable: true,
      allow_plaintext_backup: true,
      kdf: 'hkdf_sha256',
      convergent_encryption: true,
      convergent_encryption_version: -1,
    });
    const derivedOnly = await transit.createKey('d', { derived: true });
    expect(derivedOnly).toMatchObject({
      derived: true,
      kdf: 'hkdf_sha256',
      convergent_encryption: false,
    });
    expect(derivedOnly.convergent_encryption_version).toBeUndefined();
  });

  it('refuses convergent_encryption without derived', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.createKey('k', { convergent_encryption: true }),
      'invalid_request',
      'convergent encryption requires derivation to be enabled',
    );
    expect(await snapshot(storage)).toEqual({});
  });

  it('refuses an unknown type', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.createKey('k', { type: 'foo' }),
      'invalid_request',
      'unknown key type foo',
    );
    await expectError(transit.readKey('k'), 'not_found');
  });

  it('refuses derivation on an hmac key with a 400, not a 500', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.createKey('k', { type: 'hmac', derived: true }),
      'invalid_request',
      /not supported for keys of type hmac/,
    );
  });

  describe('hmac key_size', () => {
    it('defaults to 32 bytes and the key can rotate (README "bugs we fix")', async () => {
      const { transit } = makeEngine();
      const info = await transit.createKey('h', { type: 'hmac' });
      expect(info).toMatchObject({
        type: 'hmac',
        key_size: 32,
        supports_encryption: false,
        supports_decryption: false,
        supports_signing: false,
        supports_derivation: false,
      });
      const rotated = await transit.rotateKey('h');
      expect(rotated.latest_version).toBe(2);
      expect(rotated.key_size).toBe(32);
    });

    it.each([32, 33, 64, 256, 512])(
      'accepts key_size %i and keeps it across rotation',
      async (size) => {
        const { transit } = makeEngine();
        expect((await transit.createKey('h', { type: 'hmac', key_size: size })).key_size).toBe(
          size,
        );
        expect((await transit.rotateKey('h')).key_size).toBe(size);
        const { hmac } = await transit.hmac('h', { input: b64('x') });
        expect(hmac).toMatch(/^vault:v2:/);
      },
    );

    it.each([31, 1, 513, 4096, -32])('refuses key_size %i', async (size) => {
      const { transit, storage } = makeEngine();
      await expectError(
        transit.createKey('h', { type: 'hmac', key_size: size }),
        'invalid_request',
        `invalid key_size ${size}`,
      );
      expect(await snapshot(storage)).toEqual({});
    });

    it.each(SYMMETRIC_TYPES)('refuses key_size on %s', async (type) => {
      const { transit } = makeEngine();
      await expectError(
        transit.createKey('k', { type, key_size: 32 }),
        'invalid_request',
        `key_size is not valid for algorithm ${type}`,
      );
    });
  });

  describe('auto_rotate_period at creation', () => {
    it.each([
      [3600, 3600],
      ['3600', 3600],
      ['1h', 3600],
      ['90m', 5400],
      ['2d', 172_800],
      ['1h30m', 5400],
      ['3600s', 3600],
      ['1.5h', 5400],
      [0, 0],
      ['0', 0],
      ['', 0],
    ] as const)('%j → %i seconds', async (input, seconds) => {
      const { transit } = makeEngine();
      expect((await transit.createKey('k', { auto_rotate_period: input })).auto_rotate_period).toBe(
        seconds,
      );
    });

    it.each(['59m', 3599, '59m59s', 1, '1s'] as const)(
      'refuses %j (under an hour)',
      async (input) => {
        const { transit, storage } = makeEngine();
        await expectError(
          transit.createKey('k', { auto_rotate_period: input }),
          'invalid_request',
          'auto rotate period must be 0 to disable or at least an hour',
        );
        expect(await snapshot(storage)).toEqual({});
      },
    );

    it.each([-1, -3600, '-1h', '-3600'] as const)('refuses negative %j', async (input) => {
      const { transit } = makeEngine();
      await expectError(transit.createKey('k', { auto_rotate_period: input }), 'invalid_request');
    });

    it.each(['abc', '1x', 'h', '1d2h', '1 h'])('refuses malformed %j', async (input) => {
      const { transit } = makeEngine();
      await expectError(transit.createKey('k', { auto_rotate_period: input }), 'invalid_request');
    });
  });

  it('returns an existing key unchanged, with the warning "key <name> already existed"', async () => {
    const { transit, storage } = makeEngine();
    const first = await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('keep me') });
    const before = await snapshot(storage);
    const again = await transit.createKey('k', {
      type: 'chacha20-poly1305',
      derived: true,
      exportable: true,
      auto_rotate_period: '2h',
    });
    expect(warningsOf(again)).toEqual(['key k already existed']);
    expect(again).toEqual(first);
    expect(await snapshot(storage)).toEqual(before);
    expect(await transit.readKey('k')).toEqual(first);
    expect((await transit.decrypt('k', { ciphertext })).plaintext).toBe(b64('keep me'));
  });

  it('two concurrent creates of one name make one key', async () => {
    const { transit } = makeEngine();
    const [a, b] = await Promise.all([
      transit.createKey('k', { type: 'aes128-gcm96' }),
      transit.createKey('k', { type: 'chacha20-poly1305' }),
    ]);
    expect(a.type).toBe(b.type);
    expect([warningsOf(a).length, warningsOf(b).length].sort()).toEqual([0, 1]);
  });
});

describe('key names', () => {
  const invalid = [
    'a/b',
    '../x',
    '..',
    '.',
    '-a',
    'a-',
    '.a',
    'a.',
    'a b',
    ' a',
    'a\n',
    'a:b',
    'ключ',
    'é',
    '😀',
    'a\u0000',
    '',
    'x'.repeat(MAX_KEY_NAME_LENGTH + 1),
  ];

  it('MAX_KEY_NAME_LENGTH is 128', () => {
    expect(MAX_KEY_NAME_LENGTH).toBe(128);
  });

  it.each(invalid.map((n) => [JSON.stringify(n).slice(0, 40), n] as const))(
    'refuses %s with invalid_request on every keyed method',
    async (_label, name) => {
      const { transit, storage } = makeEngine();
      const calls: [string, () => Promise<unknown>][] = [
        ['createKey', () => transit.createKey(name)],
        ['readKey', () => transit.readKey(name)],
        ['updateKeyConfig', () => transit.updateKeyConfig(name, { deletion_allowed: true })],
        ['rotateKey', () => transit.rotateKey(name)],
        ['trimKey', () => transit.trimKey(name, { min_available_version: 1 })],
        ['softDeleteKey', () => transit.softDeleteKey(name)],
        ['restoreSoftDeletedKey', () => transit.restoreSoftDeletedKey(name)],
        ['deleteKey', () => transit.deleteKey(name)],
        ['encrypt', () => transit.encrypt(name, { plaintext: b64('x') })],
        ['decrypt', () => transit.decrypt(name, { ciphertext: 'vault:v1:AAAA' })],
        ['rewrap', () => transit.rewrap(name, { ciphertext: 'vault:v1:AAAA' })],
        ['generateDataKey', () => transit.generateDataKey(name, 'plaintext')],
        ['hmac', () => transit.hmac(name, { input: b64('x') })],
        ['verify', () => transit.verify(name, { input: b64('x'), hmac: 'vault:v1:AAAA' })],
      ];
      for (const [method, call] of calls) {
        const e = await expectError(call, 'invalid_request');
        expect(e.message, method).not.toBe('');
      }
      expect(await snapshot(storage)).toEqual({});
    },
  );

  it.each([
    'a',
    'A',
    '_',
    '9',
    'ab',
    'a-b',
    'a.b',
    'a_b',
    'a--b..c__d',
    'My.Key-01_x',
    'x'.repeat(MAX_KEY_NAME_LENGTH),
  ])('accepts %s', async (name) => {
    const { transit } = makeEngine();
    expect((await transit.createKey(name)).name).toBe(name);
    expect((await transit.readKey(name)).name).toBe(name);
    expect((await transit.listKeys()).keys).toEqual([name]);
    const { ciphertext } = await transit.encrypt(name, { plaintext: b64('n') });
    expect((await transit.decrypt(name, { ciphertext })).plaintext).toBe(b64('n'));
  });
});

describe('readKey', () => {
  it('fails with not_found for a missing key', async () => {
    const { transit } = makeEngine();
    await expectError(transit.readKey('nope'), 'not_found');
  });

  it('never contains key material', async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('k');
    const info = await transit.readKey('k');
    const text = JSON.stringify(info);
    expect(text).not.toMatch(/"key"|hmac_key/);
    // nothing in the body is 16+ bytes of base64
    expect(text).not.toMatch(/[A-Za-z0-9+/]{22,}={0,2}/);
    expect(Object.keys(await snapshot(storage)).length).toBeGreaterThan(0);
  });
});

describe('listKeys', () => {
  it('is empty with no keys', async () => {
    const { transit } = makeEngine();
    expect(await transit.listKeys()).toEqual({ keys: [] });
  });

  it('lists sorted names and paginates with after/limit', async () => {
    const { transit } = makeEngine();
    const names = Array.from({ length: 25 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    for (const n of [...names].reverse()) await transit.createKey(n);
    expect((await transit.listKeys()).keys).toEqual(names);
    expect((await transit.listKeys({ limit: 0 })).keys).toEqual(names);
    expect((await transit.listKeys({ limit: 10 })).keys).toEqual(names.slice(0, 10));
    expect((await transit.listKeys({ after: 'k09', limit: 10 })).keys).toEqual(names.slice(10, 20));
    expect((await transit.listKeys({ after: 'k095' })).keys).toEqual(names.slice(10));
    expect((await transit.listKeys({ after: 'k24' })).keys).toEqual([]);
    expect((await transit.listKeys({ after: 'zzz', limit: 5 })).keys).toEqual([]);
    expect((await transit.listKeys({ after: '', limit: 1 })).keys).toEqual(['k00']);
    expect((await transit.listKeys({ after: 'a' })).keys).toEqual(names);

    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = (await transit.listKeys({ after, limit: 7 })).keys;
      seen.push(...page);
      if (page.length < 7) break;
      after = page[page.length - 1] as string;
    }
    expect(seen).toEqual(names);
  });

  it('refuses a negative limit', async () => {
    const { transit } = makeEngine();
    await expectError(transit.listKeys({ limit: -1 }), 'invalid_request');
  });

  it('lists soft-deleted keys and not deleted ones', async () => {
    const { transit } = makeEngine();
    await transit.createKey('a');
    await transit.createKey('b');
    await transit.createKey('c');
    await transit.softDeleteKey('b');
    await transit.updateKeyConfig('c', { deletion_allowed: true });
    await transit.deleteKey('c');
    expect((await transit.listKeys()).keys).toEqual(['a', 'b']);
  });
});

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

describe('instances sharing one storage', () => {
  it('a key deleted by one instance is gone for the other (no stale cache)', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    await a.transit.createKey('k');
    const { ciphertext } = await b.transit.encrypt('k', { plaintext: b64('x') }); // b caches k
    expect(unb64(ciphertext.slice('vault:v1:'.length)).length).toBe(12 + 1 + 16);
    await a.transit.updateKeyConfig('k', { deletion_allowed: true });
    await a.transit.deleteKey('k');
    await settle();
    await expectError(b.transit.readKey('k'), 'not_found');
    await expectError(
      b.transit.encrypt('k', { plaintext: b64('x') }, { upsert: false }),
      'invalid_request',
      'encryption key not found',
    );
    await expectError(
      b.transit.decrypt('k', { ciphertext }),
      'invalid_request',
      'encryption key not found',
    );
  });

  it('a config change by one instance applies on the other', async () => {
    const a = makeEngine();
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    await a.transit.createKey('k');
    await a.transit.rotateKey('k');
    const { ciphertext } = await b.transit.encrypt('k', { plaintext: b64('x'), key_version: 1 }); // b caches k
    await a.transit.updateKeyConfig('k', { min_decryption_version: 2 });
    await settle();
    await expectError(
      b.transit.decrypt('k', { ciphertext }),
      'invalid_request',
      'ciphertext or signature version is disallowed by policy (too old)',
    );
  });
});
