/**
 * Malformed and tampered ciphertexts on every symmetric type: refused with
 * invalid_request and Vault's texts (spec "Encrypt/Decrypt/Rewrap").
 */

import { TransitError } from 'transitkit';
import { describe, expect, it } from 'vitest';
import {
  AUTH_FAILED,
  b64,
  bytesB64,
  expectError,
  joinVersioned,
  makeEngine,
  NONCE_BYTES,
  SYMMETRIC_TYPES,
  snapshot,
  splitVersioned,
  unb64,
} from './support.js';

describe('malformed and tampered ciphertexts', () => {
  describe.each(SYMMETRIC_TYPES)('%s', (type) => {
    const nonce = NONCE_BYTES[type];

    async function setup() {
      const eng = makeEngine();
      await eng.transit.createKey('k', { type });
      const { ciphertext } = await eng.transit.encrypt('k', { plaintext: b64('hi') });
      return { ...eng, ciphertext, payload: splitVersioned(ciphertext).payload };
    }

    it('every flipped byte is an authentication failure (invalid_request)', async () => {
      const { transit, payload } = await setup();
      expect(payload.length).toBe(nonce + 2 + 16);
      for (let i = 0; i < payload.length; i++) {
        for (const mask of [0x01, 0x80]) {
          const t = payload.slice();
          t[i] = (t[i] as number) ^ mask;
          await expectError(
            transit.decrypt('k', { ciphertext: joinVersioned('vault', 1, t) }),
            'invalid_request',
            AUTH_FAILED[type],
          );
        }
      }
    });

    it('every truncation fails: shorter than the nonce → "invalid ciphertext length", else the AEAD error', async () => {
      const { transit, payload } = await setup();
      const wrong: string[] = [];
      for (let len = 0; len < payload.length; len++) {
        const e = await expectError(
          transit.decrypt('k', { ciphertext: joinVersioned('vault', 1, payload.subarray(0, len)) }),
          'invalid_request',
        );
        const want = len < nonce ? 'invalid ciphertext length' : AUTH_FAILED[type];
        if (e.message !== want) wrong.push(`len ${len}: want "${want}", got "${e.message}"`);
      }
      expect(wrong).toEqual([]);
    });

    it('extra bytes appended fail authentication', async () => {
      const { transit, payload } = await setup();
      const longer = new Uint8Array(payload.length + 1);
      longer.set(payload);
      await expectError(
        transit.decrypt('k', { ciphertext: joinVersioned('vault', 1, longer) }),
        'invalid_request',
        AUTH_FAILED[type],
      );
    });
  });

  it("gives Vault's messages for malformed envelopes", async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('k');
    // 29-byte payload: its base64 ends in one '='
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('h') });
    const body = ciphertext.slice('vault:v1:'.length);
    expect(body.endsWith('=')).toBe(true);
    const cases: [string, string][] = [
      [`vaul:v1:${body}`, 'invalid ciphertext: no prefix'],
      [`VAULT:v1:${body}`, 'invalid ciphertext: no prefix'],
      [` ${ciphertext}`, 'invalid ciphertext: no prefix'],
      [`v1:${body}`, 'invalid ciphertext: no prefix'],
      [body, 'invalid ciphertext: no prefix'],
      ['vault:', 'invalid ciphertext: no prefix'],
      ['vault:v', 'invalid ciphertext: wrong number of fields'],
      ['vault:v1', 'invalid ciphertext: wrong number of fields'],
      [`vault:v1${body}`, 'invalid ciphertext: wrong number of fields'],
      ['vault:vX:', 'invalid ciphertext: version number could not be decoded'],
      [`vault:vX:${body}`, 'invalid ciphertext: version number could not be decoded'],
      [`vault:v:${body}`, 'invalid ciphertext: version number could not be decoded'],
      [`vault:v1.0:${body}`, 'invalid ciphertext: version number could not be decoded'],
      [`vault:v 1:${body}`, 'invalid ciphertext: version number could not be decoded'],
      [
        `vault:v99999999999999999999999:${body}`,
        'invalid ciphertext: version number could not be decoded',
      ],
      [`vault:v2:${body}`, 'invalid ciphertext: version is too new'],
      [`vault:v99:${body}`, 'invalid ciphertext: version is too new'],
      ['vault:v1:!!!!', 'invalid ciphertext: could not decode base64'],
      [`vault:v1:${body.replace(/=+$/, '')}`, 'invalid ciphertext: could not decode base64'],
      [`vault:v1:${body}:extra`, 'invalid ciphertext: could not decode base64'],
      [
        `vault:v1:${body.replace(/\+/g, '-').replace(/\//g, '_')}x`,
        'invalid ciphertext: could not decode base64',
      ],
      ['vault:v1:', 'invalid ciphertext length'],
      ['vault:v1:AAAA', 'invalid ciphertext length'],
    ];
    const before = await snapshot(storage);
    const wrong: string[] = [];
    for (const [ct, want] of cases) {
      const e = await expectError(transit.decrypt('k', { ciphertext: ct }), 'invalid_request');
      if (e.message !== want)
        wrong.push(`${JSON.stringify(ct.slice(0, 40))}: want "${want}", got "${e.message}"`);
      // rewrap parses the same way
      const r = await expectError(transit.rewrap('k', { ciphertext: ct }), 'invalid_request');
      if (r.message !== want)
        wrong.push(`rewrap ${JSON.stringify(ct.slice(0, 40))}: got "${r.message}"`);
    }
    expect(wrong).toEqual([]);
    // the same values in a batch fail per item with the same messages
    const batch = await transit.decrypt('k', {
      batch_input: cases.map(([c]) => ({ ciphertext: c })),
    });
    expect(batch.batch_results.map((r) => r.error)).toEqual(cases.map(([, m]) => m));
    expect(batch.batch_results.every((r) => r.plaintext === '')).toBe(true);
    expect(await snapshot(storage)).toEqual(before);
  });

  it('v0 is read as v1 (reference §1)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('zero') });
    const v0 = ciphertext.replace('vault:v1:', 'vault:v0:');
    expect((await transit.decrypt('k', { ciphertext: v0 })).plaintext).toBe(b64('zero'));
  });

  it('a missing or empty ciphertext is refused', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    await expectError(transit.decrypt('k', {}), 'invalid_request');
    await expectError(transit.decrypt('k', { ciphertext: '' }), 'invalid_request');
  });

  it('a ciphertext of another key fails authentication', async () => {
    const { transit } = makeEngine();
    await transit.createKey('a');
    await transit.createKey('b');
    const { ciphertext } = await transit.encrypt('a', { plaintext: b64('x') });
    await expectError(
      transit.decrypt('b', { ciphertext }),
      'invalid_request',
      AUTH_FAILED['aes256-gcm96'],
    );
  });

  it('decrypt errors are TransitErrors, never something else', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { type: 'xchacha20-poly1305' });
    const junk = [
      `vault:v1:${bytesB64(new Uint8Array(1000))}`,
      `vault:v1:${'A'.repeat(4 * 50_000)}`,
      'vault:v1:/+/+',
    ];
    for (const ciphertext of junk) {
      const e = await expectError(transit.decrypt('k', { ciphertext }), 'invalid_request');
      expect(e).toBeInstanceOf(TransitError);
    }
    expect(unb64('AAAA').length).toBe(3);
  });
});
