/**
 * Key creation through the public API: createKey options and defaults, and
 * key names (spec "Named key" states table and Errors 3, 9; reference §9, §15).
 * Read/list, delete/soft-delete and instances sharing one storage have their
 * own files (key-read-list, key-delete, key-shared-storage).
 */

import { MAX_KEY_NAME_LENGTH, warningsOf } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { FAKE_CLOCK_START } from '../helpers/fake-clock.js';
import { b64, expectError, makeEngine, SYMMETRIC_TYPES, snapshot } from './support.js';

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
