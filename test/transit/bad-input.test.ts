/**
 * Robustness: the bad-inputs matrix (test/helpers/bad-inputs.ts) fed into
 * every field of every public method. Each call must reject with a
 * TransitError `invalid_request` (`not_found` only for reads of missing keys)
 * — never a TypeError or a success — and leave storage byte-for-byte
 * unchanged. Batch item fields may instead fail only their own item.
 */

import type { ErrorCode } from 'transitkit';
import { MemoryStorage, Transit, TransitError } from 'transitkit';
import { describe, expect, it } from 'vitest';
import {
  BAD_OPTIONAL_BYTES,
  BAD_REQUIRED_BYTES,
  BAD_VERSIONED_PAYLOAD,
  BAD_VERSIONED_SYNTAX,
  type BadInput,
  jsonProto,
  NEGATIVE,
  NOT_A_BATCH,
  NOT_A_DURATION,
  NOT_A_NAME,
  NOT_AN_OBJECT,
  NOT_BOOLEAN,
  NOT_INTEGER,
  NOT_STRING,
  notOneOf,
  PROTO_NAMES,
  REQUIRED_MISSING,
} from '../helpers/bad-inputs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { b64, makeEngine, snapshot } from './support.js';

const INPUT = b64('input');
const extra = (...vals: [string, unknown][]): BadInput[] =>
  vals.map(([label, value]) => ({ label, value }));
const BAD_INT = [...NOT_INTEGER, ...NEGATIVE];

interface Fixture {
  transit: Transit;
  storage: MemoryStorage;
  /** A v1 ciphertext of key `aes` (2 versions), of `der` (derived, context "ctx"). */
  ct: string;
  ctDer: string;
  /** An HMAC of INPUT under `aes`. */
  mac: string;
}

/**
 * Keys: `aes` (aes256, 2 versions, min_encryption/decryption 2 so that trim
 * 1..2 is valid), `der` (derived), `hm` (hmac). `fresh` does not exist.
 */
async function fixture(): Promise<Fixture> {
  const { transit, storage } = makeEngine();
  await transit.createKey('aes');
  await transit.rotateKey('aes');
  const ct = (await transit.encrypt('aes', { plaintext: b64('p') })).ciphertext;
  await transit.updateKeyConfig('aes', { min_encryption_version: 2, min_decryption_version: 2 });
  await transit.createKey('der', { derived: true });
  const ctDer = (await transit.encrypt('der', { plaintext: b64('p'), context: b64('ctx') }))
    .ciphertext;
  await transit.createKey('hm', { type: 'hmac' });
  const mac = (await transit.hmac('aes', { input: INPUT })).hmac;
  return { transit, storage, ct, ctDer, mac };
}

/** A call that builds a request with the bad value in one field. */
type Call = (f: Fixture, v: unknown) => Promise<unknown>;

interface Case {
  readonly name: string;
  readonly values: readonly BadInput[];
  readonly call: Call;
  /** A batch item field: failing only that item (index `item`) is acceptable. */
  readonly item?: number;
  readonly codes?: readonly ErrorCode[];
}

/** Run every value through `call` on a fresh fixture; return the problems found. */
async function probe(c: Case): Promise<string[]> {
  const problems: string[] = [];
  const codes = c.codes ?? ['invalid_request'];
  for (const { label, value } of c.values) {
    const f = await fixture();
    const before = await snapshot(f.storage);
    let outcome: string | undefined;
    try {
      const r = await c.call(f, value);
      if (c.item !== undefined) {
        const items = (r as { batch_results?: { error?: string }[] }).batch_results;
        const it = items?.[c.item];
        if (!items || typeof it?.error !== 'string' || it.error === '') {
          outcome = `resolved without an error on item ${c.item}: ${JSON.stringify(r).slice(0, 160)}`;
        } else if (items.some((x, i) => i !== c.item && x.error !== undefined)) {
          outcome = `other items failed too: ${JSON.stringify(r).slice(0, 160)}`;
        }
      } else {
        outcome = `resolved: ${JSON.stringify(r, (_k, x) => (typeof x === 'bigint' ? String(x) : x))?.slice(0, 160)}`;
      }
    } catch (e) {
      if (!(e instanceof TransitError))
        outcome = `threw ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message ?? e)}`;
      else if (!codes.includes(e.code)) outcome = `TransitError code ${e.code}: ${e.message}`;
    }
    const after = await snapshot(f.storage);
    const changed = JSON.stringify(after) !== JSON.stringify(before);
    if (outcome) problems.push(`${label} → ${outcome}`);
    if (changed) {
      const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
        (k) => before[k] !== after[k],
      );
      problems.push(`${label} → storage changed (${keys.join(', ')})`);
    }
  }
  return problems;
}

const item2 = (field: string, v: unknown, base: Record<string, unknown>) => [
  { ...base },
  { ...base, [field]: v },
];

const CASES: Case[] = [
  // ── createKey ─────────────────────────────────────────────────────────
  { name: 'createKey name', values: NOT_A_NAME, call: (f, v) => f.transit.createKey(v as string) },
  {
    name: 'createKey type',
    values: notOneOf('aes256-gcm96', { caseInsensitive: true }),
    call: (f, v) => f.transit.createKey('fresh', { type: v as string }),
  },
  {
    name: 'createKey derived',
    values: NOT_BOOLEAN,
    call: (f, v) => f.transit.createKey('fresh', { derived: v as boolean }),
  },
  {
    name: 'createKey convergent_encryption',
    values: NOT_BOOLEAN,
    call: (f, v) =>
      f.transit.createKey('fresh', { derived: true, convergent_encryption: v as boolean }),
  },
  {
    name: 'createKey exportable',
    values: NOT_BOOLEAN,
    call: (f, v) => f.transit.createKey('fresh', { exportable: v as boolean }),
  },
  {
    name: 'createKey allow_plaintext_backup',
    values: NOT_BOOLEAN,
    call: (f, v) => f.transit.createKey('fresh', { allow_plaintext_backup: v as boolean }),
  },
  {
    name: 'createKey key_size (hmac)',
    values: [...BAD_INT, ...extra(['31', 31], ['513', 513], ['1e6', 1e6])],
    call: (f, v) => f.transit.createKey('fresh', { type: 'hmac', key_size: v as number }),
  },
  {
    name: 'createKey key_size (aes)',
    values: [...BAD_INT, ...extra(['32', 32])],
    call: (f, v) => f.transit.createKey('fresh', { key_size: v as number }),
  },
  {
    name: 'createKey auto_rotate_period',
    values: NOT_A_DURATION,
    call: (f, v) => f.transit.createKey('fresh', { auto_rotate_period: v as string }),
  },
  // ── readKey / listKeys ────────────────────────────────────────────────
  { name: 'readKey name', values: NOT_A_NAME, call: (f, v) => f.transit.readKey(v as string) },
  {
    name: 'readKey missing',
    values: extra(['fresh', 'fresh'], ['Aes', 'Aes']),
    call: (f, v) => f.transit.readKey(v as string),
    codes: ['not_found'],
  },
  {
    name: 'listKeys after',
    values: NOT_STRING,
    call: (f, v) => f.transit.listKeys({ after: v as string }),
  },
  {
    name: 'listKeys limit',
    values: BAD_INT,
    call: (f, v) => f.transit.listKeys({ limit: v as number }),
  },
  // ── updateKeyConfig ───────────────────────────────────────────────────
  {
    name: 'updateKeyConfig name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.updateKeyConfig(v as string, { deletion_allowed: true }),
  },
  {
    name: 'updateKeyConfig min_decryption_version',
    values: [...BAD_INT, ...extra(['3 (> latest)', 3])],
    call: (f, v) => f.transit.updateKeyConfig('aes', { min_decryption_version: v as number }),
  },
  {
    name: 'updateKeyConfig min_encryption_version',
    values: [...BAD_INT, ...extra(['3 (> latest)', 3], ['1 (< min dec)', 1])],
    call: (f, v) => f.transit.updateKeyConfig('aes', { min_encryption_version: v as number }),
  },
  ...(['deletion_allowed', 'exportable', 'allow_plaintext_backup'] as const).map(
    (field): Case => ({
      name: `updateKeyConfig ${field}`,
      values: NOT_BOOLEAN,
      call: (f, v) => f.transit.updateKeyConfig('aes', { [field]: v }),
    }),
  ),
  {
    name: 'updateKeyConfig auto_rotate_period',
    values: NOT_A_DURATION,
    call: (f, v) => f.transit.updateKeyConfig('aes', { auto_rotate_period: v as string }),
  },
  // ── rotate / soft delete / restore / delete / trim ────────────────────
  { name: 'rotateKey name', values: NOT_A_NAME, call: (f, v) => f.transit.rotateKey(v as string) },
  {
    name: 'softDeleteKey name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.softDeleteKey(v as string),
  },
  {
    name: 'restoreSoftDeletedKey name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.restoreSoftDeletedKey(v as string),
  },
  { name: 'deleteKey name', values: NOT_A_NAME, call: (f, v) => f.transit.deleteKey(v as string) },
  {
    name: 'trimKey name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.trimKey(v as string, { min_available_version: 1 }),
  },
  {
    name: 'trimKey min_available_version',
    values: [...BAD_INT, ...extra(['0', 0], ['3', 3], ['missing', undefined], ['null', null])],
    call: (f, v) => f.transit.trimKey('aes', { min_available_version: v as number }),
  },
  // ── encrypt (existing key `aes`, and missing key `fresh`: nothing may be upserted) ──
  ...(['aes', 'fresh'] as const).flatMap((key): Case[] => [
    {
      name: `encrypt(${key}) plaintext`,
      values: BAD_REQUIRED_BYTES,
      call: (f, v) => f.transit.encrypt(key, { plaintext: v as string }),
    },
    ...(['context', 'associated_data', 'nonce'] as const).map(
      (field): Case => ({
        name: `encrypt(${key}) ${field}`,
        values: BAD_OPTIONAL_BYTES,
        call: (f, v) => f.transit.encrypt(key, { plaintext: INPUT, [field]: v }),
      }),
    ),
    {
      name: `encrypt(${key}) key_version`,
      values: [...BAD_INT, ...extra(['3', 3])],
      call: (f, v) => f.transit.encrypt(key, { plaintext: INPUT, key_version: v as number }),
    },
    {
      name: `encrypt(${key}) batch_input`,
      values: NOT_A_BATCH,
      call: (f, v) => f.transit.encrypt(key, { batch_input: v as [] }),
    },
  ]),
  {
    name: 'encrypt name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.encrypt(v as string, { plaintext: INPUT }),
  },
  {
    name: 'encrypt(fresh) type',
    values: [...notOneOf('aes256-gcm96', { caseInsensitive: true }), ...extra(['hmac', 'hmac'])],
    call: (f, v) => f.transit.encrypt('fresh', { plaintext: INPUT, type: v as string }),
  },
  {
    name: 'encrypt(fresh) convergent_encryption',
    values: NOT_BOOLEAN,
    call: (f, v) =>
      f.transit.encrypt('fresh', {
        plaintext: INPUT,
        context: b64('c'),
        convergent_encryption: v as boolean,
      }),
  },
  {
    name: 'encrypt(fresh) options.upsert',
    values: NOT_BOOLEAN,
    call: (f, v) => f.transit.encrypt('fresh', { plaintext: INPUT }, { upsert: v as boolean }),
  },
  ...(['plaintext', 'associated_data', 'nonce', 'key_version', 'reference'] as const).map(
    (field): Case => ({
      name: `encrypt batch item ${field}`,
      item: 1,
      values:
        field === 'plaintext'
          ? BAD_REQUIRED_BYTES
          : field === 'key_version'
            ? [...BAD_INT, ...extra(['3', 3])]
            : field === 'reference'
              ? NOT_STRING
              : BAD_OPTIONAL_BYTES,
      call: (f, v) =>
        f.transit.encrypt('aes', { batch_input: item2(field, v, { plaintext: INPUT }) }),
    }),
  ),
  {
    name: 'encrypt batch item context (derived key)',
    item: 1,
    values: BAD_OPTIONAL_BYTES,
    call: (f, v) =>
      f.transit.encrypt('der', {
        batch_input: item2('context', v, { plaintext: INPUT, context: b64('ctx') }),
      }),
  },
  // ── decrypt ───────────────────────────────────────────────────────────
  {
    name: 'decrypt name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.decrypt(v as string, { ciphertext: f.ct }),
  },
  {
    name: 'decrypt ciphertext',
    values: [
      ...NOT_STRING,
      ...BAD_VERSIONED_SYNTAX,
      ...BAD_VERSIONED_PAYLOAD,
      ...REQUIRED_MISSING,
      ...extra(['""', '']),
    ],
    call: (f, v) => f.transit.decrypt('aes', { ciphertext: v as string }),
  },
  ...(['context', 'associated_data', 'nonce'] as const).map(
    (field): Case => ({
      name: `decrypt ${field}`,
      values: BAD_OPTIONAL_BYTES,
      call: (f, v) =>
        f.transit.decrypt('der', { ciphertext: f.ctDer, context: b64('ctx'), [field]: v }),
    }),
  ),
  {
    name: 'decrypt batch_input',
    values: NOT_A_BATCH,
    call: (f, v) => f.transit.decrypt('aes', { batch_input: v as [] }),
  },
  ...(['ciphertext', 'context', 'associated_data', 'nonce', 'reference'] as const).map(
    (field): Case => ({
      name: `decrypt batch item ${field}`,
      item: 1,
      values:
        field === 'ciphertext'
          ? [...NOT_STRING, ...BAD_VERSIONED_SYNTAX, ...BAD_VERSIONED_PAYLOAD, ...REQUIRED_MISSING]
          : field === 'reference'
            ? NOT_STRING
            : BAD_OPTIONAL_BYTES,
      call: (f, v) =>
        f.transit.decrypt('der', {
          batch_input: item2(field, v, { ciphertext: f.ctDer, context: b64('ctx') }),
        }),
    }),
  ),
  // ── rewrap ────────────────────────────────────────────────────────────
  {
    name: 'rewrap name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.rewrap(v as string, { ciphertext: f.ct }),
  },
  {
    name: 'rewrap ciphertext',
    values: [...NOT_STRING, ...BAD_VERSIONED_SYNTAX, ...BAD_VERSIONED_PAYLOAD, ...REQUIRED_MISSING],
    call: (f, v) => f.transit.rewrap('aes', { ciphertext: v as string }),
  },
  ...(['context', 'associated_data', 'nonce'] as const).map(
    (field): Case => ({
      name: `rewrap ${field}`,
      values: BAD_OPTIONAL_BYTES,
      call: (f, v) =>
        f.transit.rewrap('der', { ciphertext: f.ctDer, context: b64('ctx'), [field]: v }),
    }),
  ),
  {
    name: 'rewrap key_version',
    values: [...BAD_INT, ...extra(['3', 3], ['1 (< min enc)', 1])],
    call: (f, v) => f.transit.rewrap('aes', { ciphertext: f.ct, key_version: v as number }),
  },
  {
    name: 'rewrap batch_input',
    values: NOT_A_BATCH,
    call: (f, v) => f.transit.rewrap('aes', { batch_input: v as [] }),
  },
  {
    name: 'rewrap batch item ciphertext',
    item: 1,
    values: [...NOT_STRING, ...BAD_VERSIONED_SYNTAX, ...BAD_VERSIONED_PAYLOAD],
    call: (f, v) =>
      f.transit.rewrap('aes', { batch_input: item2('ciphertext', v, { ciphertext: f.ct }) }),
  },
  ...(['context', 'nonce', 'key_version', 'reference'] as const).map(
    (field): Case => ({
      name: `rewrap batch item ${field}`,
      item: 1,
      values:
        field === 'key_version'
          ? [...BAD_INT, ...extra(['3', 3])]
          : field === 'reference'
            ? NOT_STRING
            : BAD_OPTIONAL_BYTES,
      call: (f, v) =>
        f.transit.rewrap('der', {
          batch_input: item2(field, v, { ciphertext: f.ctDer, context: b64('ctx') }),
        }),
    }),
  ),
  // ── generateDataKey ───────────────────────────────────────────────────
  {
    name: 'generateDataKey name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.generateDataKey(v as string, 'plaintext'),
  },
  {
    name: 'generateDataKey kind',
    values: [
      ...notOneOf('plaintext'),
      ...REQUIRED_MISSING,
      ...extra(['""', ''], ['"wrapped "', 'wrapped ']),
    ],
    call: (f, v) => f.transit.generateDataKey('aes', v as 'plaintext'),
  },
  {
    name: 'generateDataKey bits',
    values: [
      ...BAD_INT,
      ...extra(['0', 0], ['1', 1], ['64', 64], ['1024', 1024], ['"256 "', '256 ']),
    ],
    call: (f, v) => f.transit.generateDataKey('aes', 'plaintext', { bits: v as number }),
  },
  ...(['context', 'associated_data', 'nonce'] as const).map(
    (field): Case => ({
      name: `generateDataKey ${field}`,
      values: BAD_OPTIONAL_BYTES,
      call: (f, v) =>
        f.transit.generateDataKey('der', 'wrapped', { context: b64('ctx'), [field]: v }),
    }),
  ),
  {
    name: 'generateDataKey key_version',
    values: [...BAD_INT, ...extra(['3', 3], ['1 (< min enc)', 1])],
    call: (f, v) => f.transit.generateDataKey('aes', 'wrapped', { key_version: v as number }),
  },
  // ── hmac ──────────────────────────────────────────────────────────────
  {
    name: 'hmac name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.hmac(v as string, { input: INPUT }),
  },
  {
    name: 'hmac input',
    values: BAD_REQUIRED_BYTES,
    call: (f, v) => f.transit.hmac('aes', { input: v as string }),
  },
  {
    name: 'hmac algorithm',
    values: notOneOf('sha2-256'),
    call: (f, v) => f.transit.hmac('aes', { input: INPUT, algorithm: v as string }),
  },
  {
    name: 'hmac key_version',
    values: [...BAD_INT, ...extra(['3', 3], ['1 (< min enc)', 1])],
    call: (f, v) => f.transit.hmac('aes', { input: INPUT, key_version: v as number }),
  },
  {
    name: 'hmac batch_input',
    values: NOT_A_BATCH,
    call: (f, v) => f.transit.hmac('aes', { batch_input: v as [] }),
  },
  {
    name: 'hmac batch item input',
    item: 1,
    values: BAD_REQUIRED_BYTES,
    call: (f, v) => f.transit.hmac('aes', { batch_input: item2('input', v, { input: INPUT }) }),
  },
  {
    name: 'hmac batch item reference',
    item: 1,
    values: NOT_STRING,
    call: (f, v) => f.transit.hmac('aes', { batch_input: item2('reference', v, { input: INPUT }) }),
  },
  // ── verify ────────────────────────────────────────────────────────────
  {
    name: 'verify name',
    values: NOT_A_NAME,
    call: (f, v) => f.transit.verify(v as string, { input: INPUT, hmac: f.mac }),
  },
  {
    name: 'verify signature (symmetric key)',
    values: [...NOT_STRING, ...BAD_VERSIONED_SYNTAX, ...BAD_VERSIONED_PAYLOAD],
    call: (f, v) => f.transit.verify('aes', { input: INPUT, signature: v as string }),
  },
  {
    name: 'verify hmac',
    values: [...NOT_STRING, ...BAD_VERSIONED_SYNTAX],
    call: (f, v) => f.transit.verify('aes', { input: INPUT, hmac: v as string }),
  },
  {
    name: 'verify input',
    values: BAD_OPTIONAL_BYTES,
    call: (f, v) => f.transit.verify('aes', { input: v as string, hmac: f.mac }),
  },
  ...(['hash_algorithm', 'algorithm'] as const).map(
    (field): Case => ({
      name: `verify ${field}`,
      values: notOneOf('sha2-256'),
      call: (f, v) => f.transit.verify('aes', { input: INPUT, hmac: f.mac, [field]: v }),
    }),
  ),
  {
    name: 'verify batch_input',
    values: NOT_A_BATCH,
    call: (f, v) => f.transit.verify('aes', { batch_input: v as [] }),
  },
  {
    name: 'verify batch item hmac',
    item: 1,
    values: [...NOT_STRING, ...BAD_VERSIONED_SYNTAX],
    call: (f, v) =>
      f.transit.verify('aes', { batch_input: item2('hmac', v, { input: INPUT, hmac: f.mac }) }),
  },
  {
    name: 'verify batch item input',
    item: 1,
    values: BAD_OPTIONAL_BYTES,
    call: (f, v) =>
      f.transit.verify('aes', { batch_input: item2('input', v, { input: INPUT, hmac: f.mac }) }),
  },
  // ── hash / random ─────────────────────────────────────────────────────
  {
    name: 'hash input',
    values: BAD_REQUIRED_BYTES,
    call: (f, v) => f.transit.hash({ input: v as string }),
  },
  {
    name: 'hash algorithm',
    values: notOneOf('sha2-256'),
    call: (f, v) => f.transit.hash({ input: INPUT, algorithm: v as string }),
  },
  {
    name: 'hash format',
    values: notOneOf('hex'),
    call: (f, v) => f.transit.hash({ input: INPUT, format: v as 'hex' }),
  },
  {
    name: 'randomBytes bytes',
    values: [...BAD_INT, ...extra(['0', 0], ['131073', 131_073])],
    call: (f, v) => f.transit.randomBytes({ bytes: v as number }),
  },
  {
    name: 'randomBytes format',
    values: notOneOf('base64'),
    call: (f, v) => f.transit.randomBytes({ format: v as 'hex' }),
  },
  {
    name: 'randomBytes source',
    values: notOneOf('platform'),
    call: (f, v) => f.transit.randomBytes({ source: v as 'all' }),
  },
  // ── global config ─────────────────────────────────────────────────────
  {
    name: 'writeKeysConfig disable_upsert',
    values: NOT_BOOLEAN,
    call: (f, v) => f.transit.writeKeysConfig({ disable_upsert: v as boolean }),
  },
  {
    name: 'writeCacheConfig size',
    values: [...BAD_INT, ...extra(['1', 1], ['9', 9])],
    call: (f, v) => f.transit.writeCacheConfig({ size: v as number }),
  },
];

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
