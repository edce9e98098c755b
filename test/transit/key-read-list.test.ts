/**
 * Key lifecycle through the public API: readKey and listKeys (spec "Named key";
 * reference §15).
 */

import { describe, expect, it } from 'vitest';
import { expectError, makeEngine, snapshot } from './support.js';

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
