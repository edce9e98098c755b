/**
 * Encrypt and decrypt: every symmetric type on both crypto backends,
 * associated data, derived and convergent keys, the nonce rule, key_version
 * and the prefix option (spec "Encrypt/Decrypt/Rewrap"; reference §1–§3, §9; README).
 * Batches, rewrap, upsert, cross-backend data and malformed ciphertexts have
 * their own files (encrypt-batch, rewrap, encrypt-upsert, encrypt-cross-backend,
 * ciphertext-malformed).
 */

import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import {
  AUTH_FAILED,
  b64,
  bytesB64,
  expectError,
  MISSING_CONTEXT_PREFIX,
  makeEngine,
  NONCE_BYTES,
  NONCE_NOT_ALLOWED,
  SYMMETRIC_TYPES,
  snapshot,
  splitVersioned,
  TWELVE,
} from './support.js';

for (const [backendName, backend] of BACKENDS) {
  describe(`encrypt/decrypt on ${backendName}`, () => {
    const engine = () => makeEngine({ backend });

    describe.each(SYMMETRIC_TYPES)('%s', (type) => {
      const nonce = NONCE_BYTES[type];

      it('round-trips; payload is nonce ‖ ct ‖ tag with a fresh nonce each time', async () => {
        const { transit } = engine();
        await transit.createKey('k', { type });
        const a = await transit.encrypt('k', { plaintext: b64('hello world') });
        const b = await transit.encrypt('k', { plaintext: b64('hello world') });
        expect(a.key_version).toBe(1);
        const pa = splitVersioned(a.ciphertext);
        expect(pa.prefix).toBe('vault');
        expect(pa.version).toBe(1);
        expect(pa.payload.length).toBe(nonce + 11 + 16);
        expect(a.ciphertext).not.toBe(b.ciphertext);
        expect(bytesB64(pa.payload.subarray(0, nonce))).not.toBe(
          bytesB64(splitVersioned(b.ciphertext).payload.subarray(0, nonce)),
        );
        expect(await transit.decrypt('k', { ciphertext: a.ciphertext })).toEqual({
          plaintext: b64('hello world'),
        });
        expect(await transit.decrypt('k', { ciphertext: b.ciphertext })).toEqual({
          plaintext: b64('hello world'),
        });
      });

      it('round-trips an empty plaintext and binary inputs given as Uint8Array', async () => {
        const { transit } = engine();
        await transit.createKey('k', { type });
        const empty = await transit.encrypt('k', { plaintext: '' });
        expect(splitVersioned(empty.ciphertext).payload.length).toBe(nonce + 16);
        expect(await transit.decrypt('k', { ciphertext: empty.ciphertext })).toEqual({
          plaintext: '',
        });
        const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
        const aad = new Uint8Array([1, 2, 3]);
        const c = await transit.encrypt('k', { plaintext: bytes, associated_data: aad });
        const d = await transit.decrypt('k', {
          ciphertext: c.ciphertext,
          associated_data: bytesB64(aad),
        });
        expect(d.plaintext).toBe(bytesB64(bytes));
      });

      it('authenticates associated_data', async () => {
        const { transit } = engine();
        await transit.createKey('k', { type });
        const aad = b64('order-42');
        const { ciphertext } = await transit.encrypt('k', {
          plaintext: b64('pay'),
          associated_data: aad,
        });
        expect((await transit.decrypt('k', { ciphertext, associated_data: aad })).plaintext).toBe(
          b64('pay'),
        );
        await expectError(
          transit.decrypt('k', { ciphertext }),
          'invalid_request',
          AUTH_FAILED[type],
        );
        await expectError(
          transit.decrypt('k', { ciphertext, associated_data: b64('order-43') }),
          'invalid_request',
          AUTH_FAILED[type],
        );
        const plain = await transit.encrypt('k', { plaintext: b64('pay') });
        await expectError(
          transit.decrypt('k', { ciphertext: plain.ciphertext, associated_data: aad }),
          'invalid_request',
          AUTH_FAILED[type],
        );
      });

      it('derived: context required; contexts give distinct keys that do not cross-decrypt', async () => {
        const { transit } = engine();
        await transit.createKey('k', { type, derived: true });
        await expectError(
          transit.encrypt('k', { plaintext: b64('x') }),
          'invalid_request',
          new RegExp(`^${MISSING_CONTEXT_PREFIX}`),
        );
        const c1 = b64('tenant-1');
        const c2 = b64('tenant-2');
        const a = await transit.encrypt('k', { plaintext: b64('same'), context: c1 });
        const b = await transit.encrypt('k', { plaintext: b64('same'), context: c2 });
        expect(a.ciphertext).not.toBe(b.ciphertext);
        expect(
          (await transit.decrypt('k', { ciphertext: a.ciphertext, context: c1 })).plaintext,
        ).toBe(b64('same'));
        expect(
          (await transit.decrypt('k', { ciphertext: b.ciphertext, context: c2 })).plaintext,
        ).toBe(b64('same'));
        await expectError(
          transit.decrypt('k', { ciphertext: a.ciphertext, context: c2 }),
          'invalid_request',
          AUTH_FAILED[type],
        );
        await expectError(
          transit.decrypt('k', { ciphertext: b.ciphertext, context: c1 }),
          'invalid_request',
          AUTH_FAILED[type],
        );
        await expectError(
          transit.decrypt('k', { ciphertext: a.ciphertext }),
          'invalid_request',
          new RegExp(`^${MISSING_CONTEXT_PREFIX}`),
        );
      });

      it('convergent: same context and plaintext give the same ciphertext; nonce is derived', async () => {
        const { transit } = engine();
        await transit.createKey('k', { type, derived: true, convergent_encryption: true });
        const ctx = b64('ctx');
        const a = await transit.encrypt('k', { plaintext: b64('card 4111'), context: ctx });
        const b = await transit.encrypt('k', { plaintext: b64('card 4111'), context: ctx });
        const other = await transit.encrypt('k', { plaintext: b64('card 4112'), context: ctx });
        const otherCtx = await transit.encrypt('k', {
          plaintext: b64('card 4111'),
          context: b64('ctx2'),
        });
        expect(a.ciphertext).toBe(b.ciphertext);
        expect(other.ciphertext).not.toBe(a.ciphertext);
        expect(otherCtx.ciphertext).not.toBe(a.ciphertext);
        const payload = splitVersioned(a.ciphertext).payload;
        expect(payload.length).toBe(nonce + 9 + 16);
        // the nonce differs between plaintexts (not a fixed value)
        expect(bytesB64(payload.subarray(0, nonce))).not.toBe(
          bytesB64(splitVersioned(other.ciphertext).payload.subarray(0, nonce)),
        );
        expect(
          (await transit.decrypt('k', { ciphertext: a.ciphertext, context: ctx })).plaintext,
        ).toBe(b64('card 4111'));
        await expectError(
          transit.encrypt('k', { plaintext: b64('x') }),
          'invalid_request',
          new RegExp(`^${MISSING_CONTEXT_PREFIX}`),
        );
        // a rotated key is convergent per version
        await transit.rotateKey('k');
        const v2 = await transit.encrypt('k', { plaintext: b64('card 4111'), context: ctx });
        expect(v2.ciphertext.startsWith('vault:v2:')).toBe(true);
        expect(v2.ciphertext).toBe(
          (await transit.encrypt('k', { plaintext: b64('card 4111'), context: ctx })).ciphertext,
        );
        expect(
          (await transit.decrypt('k', { ciphertext: a.ciphertext, context: ctx })).plaintext,
        ).toBe(b64('card 4111'));
        expect(
          (await transit.decrypt('k', { ciphertext: v2.ciphertext, context: ctx })).plaintext,
        ).toBe(b64('card 4111'));
      });

      it('refuses a caller nonce (README: only convergent v1 keys take one)', async () => {
        const { transit, storage } = engine();
        await transit.createKey('k', { type });
        await transit.createKey('c', { type, derived: true, convergent_encryption: true });
        const before = await snapshot(storage);
        const n = bytesB64(new Uint8Array(nonce).fill(1));
        for (const nn of [TWELVE, n]) {
          await expectError(
            transit.encrypt('k', { plaintext: b64('x'), nonce: nn }),
            'invalid_request',
            NONCE_NOT_ALLOWED,
          );
          await expectError(
            transit.encrypt('c', { plaintext: b64('x'), nonce: nn, context: b64('c') }),
            'invalid_request',
            NONCE_NOT_ALLOWED,
          );
        }
        expect(await snapshot(storage)).toEqual(before);
      });
    });
  });
}

describe('key_version on encrypt', () => {
  it('selects an older version; 0 means latest', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    const old = await transit.encrypt('k', { plaintext: b64('x'), key_version: 1 });
    expect(old.key_version).toBe(1);
    expect(old.ciphertext.startsWith('vault:v1:')).toBe(true);
    expect((await transit.encrypt('k', { plaintext: b64('x'), key_version: 0 })).key_version).toBe(
      3,
    );
    expect((await transit.encrypt('k', { plaintext: b64('x') })).key_version).toBe(3);
    expect((await transit.decrypt('k', { ciphertext: old.ciphertext })).plaintext).toBe(b64('x'));
  });

  it('refuses a version above the latest (Vault text)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.encrypt('k', { plaintext: b64('x'), key_version: 2 }),
      'invalid_request',
      'requested version for encryption is higher than the latest key version',
    );
  });

  it('refuses a negative version (Vault text)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(
      transit.encrypt('k', { plaintext: b64('x'), key_version: -1 }),
      'invalid_request',
      'requested version for encryption is negative',
    );
  });

  it('context on a non-derived key is ignored', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', {
      plaintext: b64('x'),
      context: b64('ignored'),
    });
    expect((await transit.decrypt('k', { ciphertext })).plaintext).toBe(b64('x'));
    expect((await transit.decrypt('k', { ciphertext, context: b64('other') })).plaintext).toBe(
      b64('x'),
    );
  });

  it('refuses a missing plaintext', async () => {
    const { transit, storage } = makeEngine();
    await expectError(transit.encrypt('k', {}), 'invalid_request', /plaintext/);
    expect(await snapshot(storage)).toEqual({});
  });
});

describe('prefix option', () => {
  it('changes the ciphertext prefix; other prefixes are refused', async () => {
    const { transit } = makeEngine({ extra: { prefix: 'acme' } });
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x') });
    expect(ciphertext).toMatch(/^acme:v1:/);
    expect((await transit.decrypt('k', { ciphertext })).plaintext).toBe(b64('x'));
    await expectError(
      transit.decrypt('k', { ciphertext: ciphertext.replace(/^acme/, 'vault') }),
      'invalid_request',
      'invalid ciphertext: no prefix',
    );
  });
});
