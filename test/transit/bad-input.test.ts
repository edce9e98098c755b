/**
 * Robustness: the bad-inputs matrix (test/helpers/bad-inputs.ts) fed into
 * every field of every public method. Each call must reject with a
 * TransitError `invalid_request` (`not_found` only for reads of missing keys)
 * — never a TypeError or a success — and leave storage byte-for-byte
 * unchanged. Batch item fields may instead fail only their own item.
 *
 * The case tables live in bad-input-key-cases.ts and bad-input-crypto-cases.ts,
 * the fixture and `probe` in bad-input-support.ts.
 */

import { MemoryStorage, Transit, TransitError } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { jsonProto, NOT_AN_OBJECT, PROTO_NAMES } from '../helpers/bad-inputs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { CRYPTO_CASES } from './bad-input-crypto-cases.js';
import { KEY_CASES, SERVICE_CASES } from './bad-input-key-cases.js';
import { type Call, type Case, fixture, INPUT, probe } from './bad-input-support.js';
import { makeEngine } from './support.js';

const CASES: Case[] = [...KEY_CASES, ...CRYPTO_CASES, ...SERVICE_CASES];

/** The request object itself of each method. `optional`: null may mean "no options". */
const REQUEST_CASES: { name: string; optional: boolean; call: Call }[] = [
  { name: 'createKey', optional: true, call: (f, v) => f.transit.createKey('fresh', v as never) },
  { name: 'listKeys', optional: true, call: (f, v) => f.transit.listKeys(v as never) },
  {
    name: 'updateKeyConfig',
    optional: true,
    call: (f, v) => f.transit.updateKeyConfig('aes', v as never),
  },
  { name: 'trimKey', optional: false, call: (f, v) => f.transit.trimKey('aes', v as never) },
  { name: 'encrypt(aes)', optional: false, call: (f, v) => f.transit.encrypt('aes', v as never) },
  {
    name: 'encrypt(fresh)',
    optional: false,
    call: (f, v) => f.transit.encrypt('fresh', v as never),
  },
  {
    name: 'encrypt options',
    optional: true,
    call: (f, v) => f.transit.encrypt('fresh', { plaintext: INPUT }, v as never),
  },
  { name: 'decrypt', optional: false, call: (f, v) => f.transit.decrypt('aes', v as never) },
  { name: 'rewrap', optional: false, call: (f, v) => f.transit.rewrap('aes', v as never) },
  {
    name: 'generateDataKey',
    optional: true,
    call: (f, v) => f.transit.generateDataKey('aes', 'plaintext', v as never),
  },
  { name: 'hmac', optional: false, call: (f, v) => f.transit.hmac('aes', v as never) },
  { name: 'verify', optional: false, call: (f, v) => f.transit.verify('aes', v as never) },
  { name: 'hash', optional: false, call: (f, v) => f.transit.hash(v as never) },
  { name: 'randomBytes', optional: true, call: (f, v) => f.transit.randomBytes(v as never) },
  {
    name: 'writeKeysConfig',
    optional: true,
    call: (f, v) => f.transit.writeKeysConfig(v as never),
  },
  {
    name: 'writeCacheConfig',
    optional: true,
    call: (f, v) => f.transit.writeCacheConfig(v as never),
  },
];

describe('every field of every method refuses the bad-inputs matrix', () => {
  it('the matrix is not empty', () => {
    expect(CASES.length).toBeGreaterThan(60);
    expect(CASES.every((c) => c.values.length > 0)).toBe(true);
  });

  for (const c of CASES) {
    it(c.name, async () => {
      expect(await probe(c)).toEqual([]);
    });
  }
});

describe('a request that is not an object', () => {
  for (const r of REQUEST_CASES) {
    it(`${r.name}(${r.optional ? 'optional' : 'required'})`, async () => {
      const values = r.optional
        ? NOT_AN_OBJECT
        : [...NOT_AN_OBJECT, { label: 'null', value: null }];
      expect(await probe({ name: r.name, values, call: r.call })).toEqual([]);
    });
  }

  it('null options of optional requests mean "no options" or are refused, never a TypeError', async () => {
    const problems: string[] = [];
    for (const r of REQUEST_CASES.filter((x) => x.optional)) {
      const f = await fixture();
      try {
        await r.call(f, null);
      } catch (e) {
        if (!(e instanceof TransitError) || e.code !== 'invalid_request')
          problems.push(`${r.name}: ${String(e)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('constructor options', () => {
  const refuse = (opts: Record<string, unknown>): string | undefined => {
    try {
      new Transit({ autoRotate: false, ...opts }).close();
      return `accepted ${JSON.stringify(opts)}`;
    } catch (e) {
      if (e instanceof TransitError && e.code === 'invalid_request') return undefined;
      return `${JSON.stringify(Object.keys(opts))} threw ${String(e)}`;
    }
  };

  it('refuses bad prefixes, crypto backends and batch limits with invalid_request', () => {
    const problems: string[] = [];
    for (const prefix of ['', 'a:b', 'a b', 'x'.repeat(33), 'ünï', 'a/b', 1, {}, [], true]) {
      const p = refuse({ prefix });
      if (p) problems.push(`prefix ${String(prefix)}: ${p}`);
    }
    for (const crypto of ['foo', 'NOBLE', '', 1, {}, [], null, { aeadSeal: 1 }]) {
      const p = refuse({ crypto });
      if (p) problems.push(`crypto ${JSON.stringify(crypto)}: ${p}`);
    }
    for (const maxBatchSize of [
      0,
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      'abc',
      '10',
      {},
    ]) {
      const p = refuse({ maxBatchSize });
      if (p) problems.push(`maxBatchSize ${String(maxBatchSize)}: ${p}`);
    }
    expect(problems).toEqual([]);
  });

  it('accepts good ones', async () => {
    for (const opts of [
      { prefix: 'a' },
      { prefix: 'x'.repeat(32) },
      { prefix: 'my_prefix-1' },
      { crypto: 'noble' as const },
      { crypto: 'default' as const },
      { maxBatchSize: 1 },
    ]) {
      const t = new Transit({ autoRotate: false, ...opts });
      await t.createKey('k');
      const { ciphertext } = await t.encrypt('k', { plaintext: INPUT });
      expect(ciphertext.startsWith(`${opts.prefix ?? 'vault'}:v1:`)).toBe(true);
      await t.close();
    }
  });
});

describe('__proto__-style names and fields', () => {
  it('key names that are Object.prototype members work like any other', async () => {
    const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort();
    const { transit, storage, clock } = makeEngine();
    for (const name of PROTO_NAMES) {
      await expect(transit.readKey(name)).rejects.toMatchObject({ code: 'not_found' });
      expect((await transit.createKey(name)).name).toBe(name);
      const { ciphertext } = await transit.encrypt(name, { plaintext: INPUT });
      expect((await transit.decrypt(name, { ciphertext })).plaintext).toBe(INPUT);
      expect((await transit.rotateKey(name)).latest_version).toBe(2);
    }
    expect((await transit.listKeys()).keys).toEqual([...PROTO_NAMES].sort());
    // upsert through a prototype name
    await transit.encrypt('hasOwnProperty', { plaintext: INPUT });
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoBefore);
    expect(({} as Record<string, unknown>).derived).toBeUndefined();
    // a fresh engine on the same storage reads them back
    const again = makeEngine({ storage, clock }).transit;
    expect((await again.listKeys()).keys).toEqual([...PROTO_NAMES].sort());
    for (const name of PROTO_NAMES) expect((await again.readKey(name)).latest_version).toBe(2);
  });

  it('an own "__proto__" key in a JSON body is ignored, never used as the prototype', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage({ clock });
    const transit = new Transit({ storage, clock, autoRotate: false });
    const created = await transit
      .createKey(
        'p',
        jsonProto('{"__proto__": {"derived": true, "type": "hmac", "exportable": true}}'),
      )
      .catch((e: unknown) => e);
    if (created instanceof TransitError) {
      expect(created.code).toBe('invalid_request');
    } else {
      expect(created).toMatchObject({ type: 'aes256-gcm96', derived: false, exportable: false });
    }
    await transit.createKey('q');
    const enc = await transit.encrypt(
      'q',
      jsonProto(
        `{"plaintext": "${INPUT}", "__proto__": {"key_version": 7, "nonce": "AAAAAAAAAAAAAAAA"}}`,
      ),
    );
    expect(enc.key_version).toBe(1);
    const batch = await transit
      .encrypt('q', { batch_input: [jsonProto('{"__proto__": {"plaintext": "aGk="}}')] })
      .catch((e: unknown) => e);
    if (batch instanceof TransitError) expect(batch.code).toBe('invalid_request');
    else
      expect((batch as { batch_results: { error?: string }[] }).batch_results[0]?.error).toEqual(
        expect.any(String),
      );
    const cfg = await transit.updateKeyConfig(
      'q',
      jsonProto('{"__proto__": {"deletion_allowed": true}}'),
    );
    expect(cfg.deletion_allowed).toBe(false);
    expect(({} as Record<string, unknown>).deletion_allowed).toBeUndefined();
    expect(({} as Record<string, unknown>).plaintext).toBeUndefined();
  });
});
