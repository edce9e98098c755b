/**
 * Encrypt, decrypt and rewrap: every symmetric type on both crypto backends,
 * associated data, derived and convergent keys, the nonce rule, key_version,
 * batches, upsert, cross-backend data, and malformed ciphertexts
 * (spec "Encrypt/Decrypt/Rewrap"; reference §1–§3, §9, §10, §14; README).
 */

import type { CryptoBackend } from 'transitkit';
import { MemoryStorage, Transit, TransitError, warningsOf } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { FakeClock } from '../helpers/fake-clock.js';
import {
  AUTH_FAILED,
  b64,
  bytesB64,
  expectError,
  joinVersioned,
  MISSING_CONTEXT_PREFIX,
  makeEngine,
  NONCE_BYTES,
  SYMMETRIC_TYPES,
  settle,
  snapshot,
  splitVersioned,
  unb64,
} from './support.js';

const NOT_FOUND = 'encryption key not found';
const NONCE_NOT_ALLOWED = 'provided nonce not allowed for this key';
const TWELVE = bytesB64(new Uint8Array(12).fill(7));

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

describe('batch encrypt/decrypt', () => {
  it('keeps order and always echoes reference ("" when absent)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const enc = await transit.encrypt('k', {
      batch_input: [
        { plaintext: b64('a'), reference: 'first' },
        { plaintext: b64('b') },
        { plaintext: b64('c'), reference: '' },
        { plaintext: b64('d'), reference: 'ünïcødé' },
      ],
    });
    expect(enc.batch_results.map((r) => r.reference)).toEqual(['first', '', '', 'ünïcødé']);
    for (const r of enc.batch_results) {
      expect(r.error).toBeUndefined();
      expect(r.key_version).toBe(1);
      expect(r.ciphertext).toMatch(/^vault:v1:/);
    }
    const dec = await transit.decrypt('k', {
      batch_input: enc.batch_results.map((r, i) => ({
        ciphertext: r.ciphertext as string,
        reference: `r${i}`,
      })),
    });
    expect(dec.batch_results).toEqual([
      { plaintext: b64('a'), reference: 'r0' },
      { plaintext: b64('b'), reference: 'r1' },
      { plaintext: b64('c'), reference: 'r2' },
      { plaintext: b64('d'), reference: 'r3' },
    ]);
  });

  it('ignores top-level single-item fields when batch_input is set', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const r = await transit.encrypt('k', {
      plaintext: b64('top'),
      batch_input: [{ plaintext: b64('item') }],
    });
    expect(r.batch_results).toHaveLength(1);
    expect(r).not.toHaveProperty('ciphertext');
    const d = await transit.decrypt('k', { ciphertext: r.batch_results[0]?.ciphertext as string });
    expect(d.plaintext).toBe(b64('item'));
  });

  it('a failing decrypt item carries plaintext "" and error; the others still decrypt', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('ok') });
    const res = await transit.decrypt('k', {
      batch_input: [
        { ciphertext, reference: 'a' },
        { ciphertext: 'vault:v1:AAAA', reference: 'b' },
        { ciphertext: 'nope', reference: 'c' },
        { ciphertext: 'vault:v9:AAAA' },
        { ciphertext },
      ],
    });
    expect(res.batch_results).toEqual([
      { plaintext: b64('ok'), reference: 'a' },
      { plaintext: '', error: 'invalid ciphertext length', reference: 'b' },
      { plaintext: '', error: 'invalid ciphertext: no prefix', reference: 'c' },
      { plaintext: '', error: 'invalid ciphertext: version is too new', reference: '' },
      { plaintext: b64('ok'), reference: '' },
    ]);
  });

  it('a bad encrypt item (bad version, nonce) fails alone', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const res = await transit.encrypt('k', {
      batch_input: [
        { plaintext: b64('a'), reference: 'a' },
        { plaintext: b64('b'), key_version: 5, reference: 'b' },
        { plaintext: b64('c'), nonce: TWELVE, reference: 'c' },
        { plaintext: b64('d'), reference: 'd' },
      ],
    });
    const [a, b, c, d] = res.batch_results;
    expect(a?.ciphertext).toMatch(/^vault:v1:/);
    expect(b).toMatchObject({ reference: 'b', error: expect.any(String) });
    expect(b?.ciphertext).toBeUndefined();
    expect(c).toMatchObject({ reference: 'c', error: NONCE_NOT_ALLOWED });
    expect(c?.ciphertext).toBeUndefined();
    expect(d?.ciphertext).toMatch(/^vault:v1:/);
  });

  it('an item whose plaintext is not base64 fails alone (Vault: per-item error)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const res = await transit.encrypt('k', {
      batch_input: [
        { plaintext: b64('a') },
        { plaintext: 'not base64!', reference: 'bad' },
        { plaintext: b64('c') },
      ],
    });
    expect(res.batch_results).toHaveLength(3);
    expect(res.batch_results[0]?.ciphertext).toMatch(/^vault:v1:/);
    expect(res.batch_results[1]).toMatchObject({ reference: 'bad', error: expect.any(String) });
    expect(res.batch_results[1]?.ciphertext).toBeUndefined();
    expect(res.batch_results[2]?.ciphertext).toMatch(/^vault:v1:/);
  });

  it('an item whose context is not base64 fails alone (Vault: per-item error)', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true });
    const res = await transit.encrypt('k', {
      batch_input: [
        { plaintext: b64('a'), context: b64('c1') },
        { plaintext: b64('b'), context: '%%%', reference: 'bad' },
        { plaintext: b64('c'), context: b64('c3') },
      ],
    });
    expect(res.batch_results).toHaveLength(3);
    expect(res.batch_results[1]).toMatchObject({ reference: 'bad', error: expect.any(String) });
    expect(res.batch_results[0]?.ciphertext).toMatch(/^vault:v1:/);
    expect(res.batch_results[2]?.ciphertext).toMatch(/^vault:v1:/);
  });

  it('derived batches carry a context per item', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true });
    const items = ['x', 'y', 'z'].map((t) => ({ plaintext: b64(t), context: b64(`ctx-${t}`) }));
    const enc = await transit.encrypt('k', { batch_input: items });
    const dec = await transit.decrypt('k', {
      batch_input: enc.batch_results.map((r, i) => ({
        ciphertext: r.ciphertext as string,
        context: items[i]?.context,
      })),
    });
    expect(dec.batch_results.map((r) => r.plaintext)).toEqual(items.map((i) => i.plaintext));
    // swapped contexts fail per item
    const swapped = await transit.decrypt('k', {
      batch_input: enc.batch_results.map((r, i) => ({
        ciphertext: r.ciphertext as string,
        context: items[(i + 1) % 3]?.context,
      })),
    });
    for (const r of swapped.batch_results) {
      expect(r).toEqual({ plaintext: '', error: AUTH_FAILED['aes256-gcm96'], reference: '' });
    }
  });

  it('refuses mixing items with and without context', async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('k', { derived: true });
    const before = await snapshot(storage);
    await expectError(
      transit.encrypt('k', {
        batch_input: [{ plaintext: b64('a'), context: b64('c') }, { plaintext: b64('b') }],
      }),
      'invalid_request',
      'context should be set either in all the request blocks or in none',
    );
    await expectError(
      transit.encrypt('k', {
        batch_input: [{ plaintext: b64('a') }, { plaintext: b64('b'), context: b64('c') }],
      }),
      'invalid_request',
      'context should be set either in all the request blocks or in none',
    );
    // also on a missing key: nothing is upserted
    await expectError(
      transit.encrypt('fresh', {
        batch_input: [{ plaintext: b64('a'), context: b64('c') }, { plaintext: b64('b') }],
      }),
      'invalid_request',
      'context should be set either in all the request blocks or in none',
    );
    expect(await snapshot(storage)).toEqual(before);
  });

  it('refuses an empty batch', async () => {
    const { transit, storage } = makeEngine();
    await transit.createKey('k');
    const before = await snapshot(storage);
    for (const call of [
      () => transit.encrypt('k', { batch_input: [] }),
      () => transit.encrypt('fresh', { batch_input: [] }),
      () => transit.decrypt('k', { batch_input: [] }),
      () => transit.rewrap('k', { batch_input: [] }),
    ]) {
      await expectError(call, 'invalid_request', 'missing batch input to process');
    }
    expect(await snapshot(storage)).toEqual(before);
  });

  it('refuses a batch above maxBatchSize', async () => {
    const { transit } = makeEngine({ extra: { maxBatchSize: 3 } });
    await transit.createKey('k');
    const items = Array.from({ length: 4 }, () => ({ plaintext: b64('x') }));
    await expectError(transit.encrypt('k', { batch_input: items }), 'invalid_request');
    expect(
      (await transit.encrypt('k', { batch_input: items.slice(0, 3) })).batch_results,
    ).toHaveLength(3);
  });
});

describe('rewrap', () => {
  it('moves a ciphertext to the latest version without revealing the plaintext', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', {
      plaintext: b64('wrap me'),
      associated_data: b64('aad'),
    });
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    const r = await transit.rewrap('k', { ciphertext, associated_data: b64('aad') });
    expect(Object.keys(r).sort()).toEqual(['ciphertext', 'key_version']);
    expect(r.key_version).toBe(3);
    expect(r.ciphertext.startsWith('vault:v3:')).toBe(true);
    expect(JSON.stringify(r)).not.toContain(b64('wrap me'));
    await transit.updateKeyConfig('k', { min_decryption_version: 3 });
    expect(
      (await transit.decrypt('k', { ciphertext: r.ciphertext, associated_data: b64('aad') }))
        .plaintext,
    ).toBe(b64('wrap me'));
  });

  it('honours key_version and min_encryption_version', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x') });
    await transit.rotateKey('k');
    await transit.rotateKey('k');
    expect((await transit.rewrap('k', { ciphertext, key_version: 2 })).ciphertext).toMatch(
      /^vault:v2:/,
    );
    await transit.updateKeyConfig('k', { min_encryption_version: 2 });
    await expectError(transit.rewrap('k', { ciphertext, key_version: 1 }), 'invalid_request');
    expect((await transit.rewrap('k', { ciphertext })).key_version).toBe(3);
  });

  it('derived keys need the context; convergent rewrap equals a fresh encrypt', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k', { derived: true, convergent_encryption: true });
    const ctx = b64('ctx');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x'), context: ctx });
    await transit.rotateKey('k');
    await expectError(
      transit.rewrap('k', { ciphertext }),
      'invalid_request',
      new RegExp(`^${MISSING_CONTEXT_PREFIX}`),
    );
    const r = await transit.rewrap('k', { ciphertext, context: ctx });
    expect(r.ciphertext).toBe(
      (await transit.encrypt('k', { plaintext: b64('x'), context: ctx })).ciphertext,
    );
  });

  it('batch: order, reference echo, per-item errors, no plaintext anywhere', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const a = (await transit.encrypt('k', { plaintext: b64('a') })).ciphertext;
    await transit.rotateKey('k');
    const res = await transit.rewrap('k', {
      batch_input: [
        { ciphertext: a, reference: 'x' },
        { ciphertext: 'garbage', reference: 'y' },
        { ciphertext: a },
      ],
    });
    expect(res.batch_results).toHaveLength(3);
    expect(res.batch_results[0]).toMatchObject({ key_version: 2, reference: 'x' });
    expect(res.batch_results[0]?.ciphertext).toMatch(/^vault:v2:/);
    expect(res.batch_results[1]).toEqual({
      error: 'invalid ciphertext: no prefix',
      reference: 'y',
    });
    expect(res.batch_results[2]).toMatchObject({ key_version: 2, reference: '' });
    for (const r of res.batch_results) expect(r).not.toHaveProperty('plaintext');
  });

  it('refuses a nonce and a missing key', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const { ciphertext } = await transit.encrypt('k', { plaintext: b64('x') });
    await expectError(
      transit.rewrap('k', { ciphertext, nonce: TWELVE }),
      'invalid_request',
      NONCE_NOT_ALLOWED,
    );
    await expectError(transit.rewrap('nope', { ciphertext }), 'invalid_request', NOT_FOUND);
  });
});

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

describe('cross-backend data', () => {
  const pair = () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const [[, nodeB], [, nobleB]] = BACKENDS as [
      readonly [string, CryptoBackend],
      readonly [string, CryptoBackend],
    ];
    const node = new Transit({ storage, clock, crypto: nodeB, autoRotate: false });
    const noble = new Transit({ storage, clock, crypto: nobleB, autoRotate: false });
    return { node, noble, storage };
  };

  it.each(SYMMETRIC_TYPES)(
    '%s ciphertexts decrypt on the other backend, with AAD and derivation',
    async (type) => {
      const { node, noble } = pair();
      await node.createKey('k', { type });
      await node.createKey('d', { type, derived: true });
      await node.createKey('c', { type, derived: true, convergent_encryption: true });
      const aad = b64('aad');
      const ctx = b64('ctx');
      for (const [from, to] of [
        [node, noble],
        [noble, node],
      ] as const) {
        const a = await from.encrypt('k', { plaintext: b64('plain'), associated_data: aad });
        expect(
          (await to.decrypt('k', { ciphertext: a.ciphertext, associated_data: aad })).plaintext,
        ).toBe(b64('plain'));
        const d = await from.encrypt('d', { plaintext: b64('derived'), context: ctx });
        expect((await to.decrypt('d', { ciphertext: d.ciphertext, context: ctx })).plaintext).toBe(
          b64('derived'),
        );
        const c = await from.encrypt('c', { plaintext: b64('conv'), context: ctx });
        expect(c.ciphertext).toBe(
          (await to.encrypt('c', { plaintext: b64('conv'), context: ctx })).ciphertext,
        );
        expect((await to.decrypt('c', { ciphertext: c.ciphertext, context: ctx })).plaintext).toBe(
          b64('conv'),
        );
        const { hmac } = await from.hmac('k', { input: b64('m'), algorithm: 'sha3-256' });
        expect(await to.verify('k', { input: b64('m'), hmac, hash_algorithm: 'sha3-256' })).toEqual(
          { valid: true },
        );
      }
    },
  );

  it('a rotation by one instance is visible to the other (no stale key cache)', async () => {
    const { node, noble } = pair();
    await node.createKey('k');
    await noble.encrypt('k', { plaintext: b64('x') }); // noble caches k at v1
    await node.rotateKey('k');
    const v2 = await node.encrypt('k', { plaintext: b64('y') });
    expect(v2.key_version).toBe(2);
    await settle();
    expect((await noble.decrypt('k', { ciphertext: v2.ciphertext })).plaintext).toBe(b64('y'));
    expect((await noble.encrypt('k', { plaintext: b64('z') })).key_version).toBe(2);
  });
});

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
