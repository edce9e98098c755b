/**
 * Bad-inputs matrix cases for encrypt, decrypt, rewrap, data keys, HMAC and
 * verify, single and batch (run by bad-input.test.ts).
 */

import {
  BAD_OPTIONAL_BYTES,
  BAD_REQUIRED_BYTES,
  BAD_VERSIONED_PAYLOAD,
  BAD_VERSIONED_SYNTAX,
  NOT_A_BATCH,
  NOT_A_NAME,
  NOT_BOOLEAN,
  NOT_STRING,
  notOneOf,
  REQUIRED_MISSING,
} from '../helpers/bad-inputs.js';
import { BAD_INT, type Case, extra, INPUT, item2 } from './bad-input-support.js';
import { b64 } from './support.js';

/** Encrypt, decrypt, rewrap, data keys, HMAC and verify. */
export const CRYPTO_CASES: Case[] = [
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
    // Optional as Vault's pathHMACWrite: a missing input is the empty message.
    values: BAD_OPTIONAL_BYTES,
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
];
