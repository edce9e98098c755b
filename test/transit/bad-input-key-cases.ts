/**
 * Bad-inputs matrix cases for key management, hash/random and the global
 * configs (run by bad-input.test.ts).
 */

import {
  BAD_REQUIRED_BYTES,
  NOT_A_DURATION,
  NOT_A_NAME,
  NOT_BOOLEAN,
  NOT_STRING,
  notOneOf,
} from '../helpers/bad-inputs.js';
import { BAD_INT, type Case, extra, INPUT } from './bad-input-support.js';

/** Key management: create, read, list, config, rotate, delete, trim. */
export const KEY_CASES: Case[] = [
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
];

/** Hash, random bytes and the global configs. */
export const SERVICE_CASES: Case[] = [
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
