/**
 * Upsert: encrypt to a missing key creates it (spec "Encrypt/Decrypt/Rewrap";
 * README).
 */

import { warningsOf } from 'transitkit';
import { describe, expect, it } from 'vitest';
import {
  b64,
  expectError,
  makeEngine,
  NONCE_BYTES,
  NOT_FOUND,
  SYMMETRIC_TYPES,
  snapshot,
  splitVersioned,
} from './support.js';

describe('upsert', () => {
  it('encrypt to a missing key creates an aes256-gcm96 key with defaults', async () => {
    const { transit } = makeEngine();
    const { ciphertext } = await transit.encrypt('new', { plaintext: b64('x') });
    expect(ciphertext).toMatch(/^vault:v1:/);
    expect(await transit.readKey('new')).toMatchObject({
      type: 'aes256-gcm96',
      derived: false,
      exportable: false,
      deletion_allowed: false,
      latest_version: 1,
    });
    expect((await transit.decrypt('new', { ciphertext })).plaintext).toBe(b64('x'));
  });

  it.each(SYMMETRIC_TYPES)('takes the type %s from the request', async (type) => {
    const { transit } = makeEngine();
    const { ciphertext } = await transit.encrypt('new', { plaintext: b64('x'), type });
    expect((await transit.readKey('new')).type).toBe(type);
    expect(splitVersioned(ciphertext).payload.length).toBe(NONCE_BYTES[type] + 1 + 16);
  });

  it('type is ignored once the key exists', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { type: 'aes128-gcm96' });
    await transit.encrypt('k', { plaintext: b64('x'), type: 'chacha20-poly1305' });
    expect((await transit.readKey('k')).type).toBe('aes128-gcm96');
  });

  it('derived iff the (first) item has a context', async () => {
    const { transit } = makeEngine();
    await transit.encrypt('plain', { plaintext: b64('x') });
    await transit.encrypt('single', { plaintext: b64('x'), context: b64('c') });
    await transit.encrypt('batch', {
      batch_input: [
        { plaintext: b64('x'), context: b64('c') },
        { plaintext: b64('y'), context: b64('d') },
      ],
    });
    await transit.encrypt('batch0', { batch_input: [{ plaintext: b64('x') }] });
    expect((await transit.readKey('plain')).derived).toBe(false);
    expect((await transit.readKey('single')).derived).toBe(true);
    expect((await transit.readKey('batch')).derived).toBe(true);
    expect((await transit.readKey('batch0')).derived).toBe(false);
  });

  it('convergent_encryption with a context makes a convergent derived key', async () => {
    const { transit } = makeEngine();
    const a = await transit.encrypt('c', {
      plaintext: b64('x'),
      context: b64('k'),
      convergent_encryption: true,
    });
    const info = await transit.readKey('c');
    expect(info).toMatchObject({ derived: true, convergent_encryption: true });
    expect(
      (await transit.encrypt('c', { plaintext: b64('x'), context: b64('k') })).ciphertext,
    ).toBe(a.ciphertext);
  });

  it('convergent_encryption without a context is refused and creates nothing', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.encrypt('c', { plaintext: b64('x'), convergent_encryption: true }),
      'invalid_request',
      'convergent encryption requires derivation to be enabled, so context is required',
    );
    expect(await snapshot(storage)).toEqual({});
  });

  it('{ upsert: false } and disable_upsert refuse with "encryption key not found"', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.encrypt('k', { plaintext: b64('x') }, { upsert: false }),
      'invalid_request',
      NOT_FOUND,
    );
    expect(await snapshot(storage)).toEqual({});
    await transit.writeKeysConfig({ disable_upsert: true });
    const before = await snapshot(storage);
    await expectError(transit.encrypt('k', { plaintext: b64('x') }), 'invalid_request', NOT_FOUND);
    await expectError(
      transit.encrypt('k', { plaintext: b64('x') }, { upsert: true }),
      'invalid_request',
      NOT_FOUND,
    );
    await expectError(
      transit.encrypt('k', { batch_input: [{ plaintext: b64('x') }] }),
      'invalid_request',
      NOT_FOUND,
    );
    expect(await snapshot(storage)).toEqual(before);
    await expectError(transit.readKey('k'), 'not_found');
  });

  it('only encrypt upserts: decrypt, rewrap and datakey on a missing key fail', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.decrypt('k', { ciphertext: 'vault:v1:AAAA' }),
      'invalid_request',
      NOT_FOUND,
    );
    await expectError(
      transit.rewrap('k', { ciphertext: 'vault:v1:AAAA' }),
      'invalid_request',
      NOT_FOUND,
    );
    await expectError(transit.generateDataKey('k', 'wrapped'), 'invalid_request', NOT_FOUND);
    expect(await snapshot(storage)).toEqual({});
  });

  it('refuses an unknown type without creating the key', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.encrypt('k', { plaintext: b64('x'), type: 'foo' }),
      'invalid_request',
      'unknown key type foo',
    );
    expect(await snapshot(storage)).toEqual({});
  });

  it('refuses type hmac with Vault\'s text "unknown key type hmac" (reference §10)', async () => {
    const { transit, storage } = makeEngine();
    await expectError(
      transit.encrypt('k', { plaintext: b64('x'), type: 'hmac' }),
      'invalid_request',
      'unknown key type hmac',
    );
    expect(await snapshot(storage)).toEqual({});
  });

  it('concurrent upserts of one name create it once and both ciphertexts decrypt', async () => {
    const { transit } = makeEngine();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => transit.encrypt('race', { plaintext: b64(`p${i}`) })),
    );
    for (const [i, r] of results.entries()) {
      expect((await transit.decrypt('race', { ciphertext: r.ciphertext })).plaintext).toBe(
        b64(`p${i}`),
      );
      expect(warningsOf(r).every((w) => typeof w === 'string')).toBe(true);
    }
    expect((await transit.readKey('race')).latest_version).toBe(1);
  });
});
