/**
 * Batch encrypt/decrypt: order, references, per-item errors and limits
 * (spec "Encrypt/Decrypt/Rewrap").
 */

import { describe, expect, it } from 'vitest';
import {
  AUTH_FAILED,
  b64,
  expectError,
  makeEngine,
  NONCE_NOT_ALLOWED,
  snapshot,
  TWELVE,
} from './support.js';

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

  it('every item is its own object, its fields in order and reference last', async () => {
    const { transit } = makeEngine();
    await transit.createKey('k');
    const enc = await transit.encrypt('k', {
      batch_input: [
        { plaintext: b64('a'), reference: 'x' },
        { plaintext: 'not base64!', reference: 'y' },
        { plaintext: b64('a'), reference: 'z' },
      ],
    });
    const [one, bad, two] = enc.batch_results;
    expect(Object.keys(one ?? {})).toEqual(['ciphertext', 'key_version', 'reference']);
    expect(Object.keys(bad ?? {})).toEqual(['error', 'reference']);
    expect(one).not.toBe(two);
    expect(one?.ciphertext).not.toBe(two?.ciphertext);
    const dec = await transit.decrypt('k', {
      batch_input: [{ ciphertext: one?.ciphertext as string, reference: 'p' }, { ciphertext: 'x' }],
    });
    expect(dec.batch_results.map((r) => Object.keys(r))).toEqual([
      ['plaintext', 'reference'],
      ['plaintext', 'error', 'reference'],
    ]);
    const signed = await transit.hmac('k', { batch_input: [{ input: b64('m'), reference: 'h' }] });
    expect(Object.keys(signed.batch_results[0] ?? {})).toEqual(['hmac', 'reference']);
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

  it('items answered at once and items that read an archived version keep their order', async () => {
    // 20 versions: version 1 is archived; a second instance has nothing of it cached, so
    // its items wait for a storage read while the latest version's are done synchronously.
    const a = makeEngine();
    await a.transit.createKey('k');
    const old = (await a.transit.encrypt('k', { plaintext: b64('old') })).ciphertext;
    for (let i = 0; i < 19; i++) await a.transit.rotateKey('k');
    const latest = (await a.transit.encrypt('k', { plaintext: b64('new') })).ciphertext;
    const b = makeEngine({ storage: a.storage, clock: a.clock });
    const dec = await b.transit.decrypt('k', {
      batch_input: [
        { ciphertext: latest, reference: '1' },
        { ciphertext: old, reference: '2' },
        { ciphertext: 'vault:v1:AAAA', reference: '3' },
        { ciphertext: latest, reference: '4' },
      ],
    });
    expect(dec.batch_results.map((r) => [r.reference, r.plaintext])).toEqual([
      ['1', b64('new')],
      ['2', b64('old')],
      ['3', ''],
      ['4', b64('new')],
    ]);
    expect(dec.batch_results[2]?.error).toBe('invalid ciphertext length');
    const c = makeEngine({ storage: a.storage, clock: a.clock });
    const enc = await c.transit.encrypt('k', {
      batch_input: [
        { plaintext: b64('x'), reference: 'a' },
        { plaintext: b64('y'), key_version: 1, reference: 'b' },
        { plaintext: b64('z'), reference: 'c' },
      ],
    });
    expect(enc.batch_results.map((r) => [r.reference, r.key_version])).toEqual([
      ['a', 20],
      ['b', 1],
      ['c', 20],
    ]);
    const back = await a.transit.decrypt('k', {
      batch_input: enc.batch_results.map((r) => ({ ciphertext: r.ciphertext })),
    });
    expect(back.batch_results.map((r) => r.plaintext)).toEqual([b64('x'), b64('y'), b64('z')]);
  });
});
