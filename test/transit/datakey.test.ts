/**
 * Data keys (spec "Generate data key"; reference §9 datakey row, README nonce rule).
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import {
  b64,
  bytesB64,
  expectError,
  makeEngine,
  NONCE_BYTES,
  SYMMETRIC_TYPES,
  snapshot,
  splitVersioned,
  unb64,
} from './support.js';

for (const [backendName, backend] of BACKENDS) {
  describe(`generateDataKey on ${backendName}`, () => {
    it.each(SYMMETRIC_TYPES)(
      '%s: plaintext kind returns the key and its wrapping',
      async (type) => {
        const { transit } = makeEngine({ backend });
        await transit.createKey('k', { type });
        const dk = await transit.generateDataKey('k', 'plaintext');
        expect(Object.keys(dk).sort()).toEqual(['ciphertext', 'key_version', 'plaintext']);
        expect(dk.key_version).toBe(1);
        expect(unb64(dk.plaintext as string).length).toBe(32);
        const parts = splitVersioned(dk.ciphertext);
        expect(parts.prefix).toBe('vault');
        expect(parts.version).toBe(1);
        expect(parts.payload.length).toBe(NONCE_BYTES[type] + 32 + 16);
        expect((await transit.decrypt('k', { ciphertext: dk.ciphertext })).plaintext).toBe(
          dk.plaintext,
        );
      },
    );

    it.each(SYMMETRIC_TYPES)(
      '%s: wrapped kind returns only the wrapped key, which decrypts',
      async (type) => {
        const { transit } = makeEngine({ backend });
        await transit.createKey('k', { type });
        const dk = await transit.generateDataKey('k', 'wrapped');
        expect(Object.keys(dk).sort()).toEqual(['ciphertext', 'key_version']);
        expect(dk).not.toHaveProperty('plaintext');
        const { plaintext } = await transit.decrypt('k', { ciphertext: dk.ciphertext });
        expect(unb64(plaintext).length).toBe(32);
      },
    );
  });
}

describe('generateDataKey options', () => {
  it.each([
    [128, 16],
    [256, 32],
    [512, 64],
  ])('bits %i gives %i bytes', async (bits, bytes) => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const dk = await transit.generateDataKey('k', 'plaintext', { bits });
    expect(unb64(dk.plaintext as string).length).toBe(bytes);
    expect((await transit.decrypt('k', { ciphertext: dk.ciphertext })).plaintext).toBe(
      dk.plaintext,
    );
    const w = await transit.generateDataKey('k', 'wrapped', { bits });
    expect(unb64((await transit.decrypt('k', { ciphertext: w.ciphertext })).plaintext).length).toBe(
      bytes,
    );
  });

  it.each([0, 1, 64, 127, 192, 255, 384, 1024, -256])(
    'refuses bits %i with "invalid bit length"',
    async (bits) => {
      const { transit, storage } = makeEngine();
      await transit.createKey('k');
      const before = await snapshot(storage);
      await expectError(
        transit.generateDataKey('k', 'plaintext', { bits }),
        'invalid_request',
        'invalid bit length',
      );
      await expectError(
        transit.generateDataKey('k', 'wrapped', { bits }),
        'invalid_request',
        'invalid bit length',
      );
      expect(await snapshot(storage)).toEqual(before);
    },
  );

  it('refuses a kind other than plaintext/wrapped', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    for (const kind of ['foo', '', 'Plaintext', 'WRAPPED', 'plaintext ']) {
      await expectError(
        transit.generateDataKey('k', kind as 'plaintext'),
        'invalid_request',
        "Invalid path, must be 'plaintext' or 'wrapped'",
      );
    }
  });

  it('keys are random', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++)
      seen.add((await transit.generateDataKey('k', 'plaintext')).plaintext as string);
    expect(seen.size).toBe(20);
  });

  it('derived keys need a context, and the wrapped key decrypts with it', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true });
    await expectError(
      transit.generateDataKey('k', 'plaintext'),
      'invalid_request',
      /^missing 'context' for key derivation/,
    );
    const ctx = b64('tenant');
    const dk = await transit.generateDataKey('k', 'plaintext', { context: ctx });
    expect(
      (await transit.decrypt('k', { ciphertext: dk.ciphertext, context: ctx })).plaintext,
    ).toBe(dk.plaintext);
    await expectError(
      transit.decrypt('k', { ciphertext: dk.ciphertext, context: b64('other') }),
      'invalid_request',
    );
  });

  it('convergent keys still give a fresh data key each time', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true, convergent_encryption: true });
    const ctx = b64('c');
    const a = await transit.generateDataKey('k', 'plaintext', { context: ctx });
    const b = await transit.generateDataKey('k', 'plaintext', { context: ctx });
    expect(a.plaintext).not.toBe(b.plaintext);
    expect((await transit.decrypt('k', { ciphertext: a.ciphertext, context: ctx })).plaintext).toBe(
      a.plaintext,
    );
  });

  it('associated_data binds the wrapped key', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const aad = b64('bucket/object');
    const dk = await transit.generateDataKey('k', 'plaintext', { associated_data: aad });
    expect(
      (await transit.decrypt('k', { ciphertext: dk.ciphertext, associated_data: aad })).plaintext,
    ).toBe(dk.plaintext);
    await expectError(
      transit.decrypt('k', { ciphertext: dk.ciphertext }),
      'invalid_request',
      'cipher: message authentication failed',
    );
  });

  it('refuses a caller nonce', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.generateDataKey('k', 'plaintext', { nonce: bytesB64(new Uint8Array(12)) }),
      'invalid_request',
      'provided nonce not allowed for this key',
    );
  });

  it('key_version selects the wrapping version and obeys min_encryption_version', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await transit.rotateKey('k');
    const v1 = await transit.generateDataKey('k', 'wrapped', { key_version: 1 });
    expect(v1.key_version).toBe(1);
    expect(v1.ciphertext).toMatch(/^vault:v1:/);
    expect((await transit.generateDataKey('k', 'wrapped')).ciphertext).toMatch(/^vault:v2:/);
    await transit.updateKeyConfig('k', { min_encryption_version: 2 });
    await expectError(
      transit.generateDataKey('k', 'wrapped', { key_version: 1 }),
      'invalid_request',
    );
    await expectError(
      transit.generateDataKey('k', 'wrapped', { key_version: 3 }),
      'invalid_request',
    );
  });

  it('refuses a missing key (no upsert) and an hmac key', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.generateDataKey('nope', 'plaintext'),
      'invalid_request',
      'encryption key not found',
    );
    expect(await snapshot(storage)).toEqual({});
    await transit.createKey('h', { type: 'hmac' });
    await expectError(transit.generateDataKey('h', 'plaintext'), 'invalid_request');
  });
});
