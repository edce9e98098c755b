/**
 * The transit half of the route walk in routes-walk.test.ts.
 */

import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { wrapForImport } from '../transit/import-support.js';
import { b64 } from './helpers.js';
import { certify, type Step } from './route-support.js';

/**
 * The walk's transit steps: keys, key mobility, signing, encryption, HMAC.
 * `state` carries values between steps.
 */
export const transitSteps = (state: Record<string, string>): Step[] => [
  {
    method: 'POST',
    url: '/v1/transit/keys/walk',
    body: { type: 'aes256-gcm96' },
    status: 200,
    check: (r) => expect(r.json.data.latest_version).toBe(1),
  },
  {
    method: 'GET',
    url: '/v1/transit/keys/walk',
    status: 200,
    check: (r) => expect(r.json.data).toMatchObject({ name: 'walk', type: 'aes256-gcm96' }),
  },
  {
    method: 'LIST',
    url: '/v1/transit/keys',
    status: 200,
    check: (r) => expect(r.json.data.keys).toContain('walk'),
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk/config',
    body: { deletion_allowed: true, exportable: 'true', allow_plaintext_backup: true },
    status: 200,
    check: (r) => expect(r.json.data.deletion_allowed).toBe(true),
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk/rotate',
    status: 200,
    check: (r) => expect(r.json.data.latest_version).toBe(2),
  },
  {
    method: 'PUT',
    url: '/v1/transit/keys/walk/config',
    body: { min_decryption_version: 2, min_encryption_version: '2' },
    status: 200,
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk/trim',
    body: { min_available_version: 2 },
    status: 200,
    check: (r) => expect(Object.keys(r.json.data.keys)).toEqual(['2']),
  },
  {
    method: 'DELETE',
    url: '/v1/transit/keys/walk/soft-delete',
    status: 200,
    check: (r) => expect(r.json.data.soft_deleted).toBe(true),
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk/soft-delete-restore',
    status: 200,
    check: (r) => expect(r.json.data.soft_deleted).toBe(false),
  },
  {
    method: 'GET',
    url: '/v1/transit/backup/walk',
    status: 200,
    check: (r) => {
      state.backup = r.json.data.backup;
    },
  },
  {
    method: 'POST',
    url: '/v1/transit/restore/walk2',
    body: () => ({ backup: state.backup }),
    status: 204,
  },
  // Key mobility: wrapping key, import, import_version, byok-export.
  {
    method: 'GET',
    url: '/v1/transit/wrapping_key',
    status: 200,
    check: (r) => {
      state.wrap = r.json.data.public_key;
      expect(state.wrap).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    },
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk-imp/import',
    body: () => ({
      type: 'aes256-gcm96',
      ciphertext: wrapForImport(state.wrap as string, randomBytes(32)),
      exportable: true,
    }),
    status: 204,
  },
  {
    method: 'PUT',
    url: '/v1/transit/keys/walk-imp/import_version',
    body: () => ({ ciphertext: wrapForImport(state.wrap as string, randomBytes(32)) }),
    status: 204,
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk-wrap/import',
    body: () => ({ type: 'rsa-4096', public_key: state.wrap }),
    status: 204,
  },
  {
    method: 'GET',
    url: '/v1/transit/byok-export/walk-wrap/walk-imp?hash=SHA512',
    status: 200,
    check: (r) => {
      expect(r.json.data).toMatchObject({ name: 'walk-imp', type: 'aes256-gcm96' });
      expect(Object.keys(r.json.data.keys)).toEqual(['1', '2']);
    },
  },
  // Signing keys: sign, verify, export, CSR, certificate chain.
  {
    method: 'POST',
    url: '/v1/transit/keys/walk-ec',
    body: { type: 'ecdsa-p256', exportable: true },
    status: 200,
  },
  {
    method: 'POST',
    url: '/v1/transit/sign/walk-ec/sha2-256',
    body: { input: b64('signed') },
    status: 200,
    check: (r) => {
      state.sig = r.json.data.signature;
      expect(state.sig).toMatch(/^vault:v1:/);
    },
  },
  {
    method: 'POST',
    url: '/v1/transit/verify/walk-ec',
    body: () => ({ input: b64('signed'), signature: state.sig, hash_algorithm: 'sha2-256' }),
    status: 200,
    check: (r) => expect(r.json.data.valid).toBe(true),
  },
  {
    method: 'GET',
    url: '/v1/transit/export/public-key/walk-ec',
    status: 200,
    check: (r) => expect(r.json.data.keys['1']).toMatch(/^-----BEGIN PUBLIC KEY-----/),
  },
  { method: 'GET', url: '/v1/transit/export/signing-key/walk-ec/latest', status: 200 },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk-ec/csr',
    body: {},
    status: 200,
    check: (r) => {
      state.csr = r.json.data.csr;
      expect(state.csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
    },
  },
  {
    method: 'POST',
    url: '/v1/transit/keys/walk-ec/set-certificate',
    body: () => ({ certificate_chain: certify(state.csr as string) }),
    status: 200,
    check: (r) => expect(r.json.data.certificate_chain).toMatch(/^-----BEGIN CERTIFICATE-----/),
  },
  {
    method: 'POST',
    url: '/v1/transit/config/keys',
    body: { disable_upsert: false },
    status: 200,
    check: (r) => expect(r.json.data).toEqual({ disable_upsert: false }),
  },
  {
    method: 'GET',
    url: '/v1/transit/config/keys',
    status: 200,
    check: (r) => expect(r.json.data).toEqual({ disable_upsert: false }),
  },
  {
    method: 'POST',
    url: '/v1/transit/cache-config',
    body: { size: 20 },
    status: 200,
    check: (r) => expect(r.json.data).toEqual({ size: 20 }),
  },
  {
    method: 'GET',
    url: '/v1/transit/cache-config',
    status: 200,
    check: (r) => expect(r.json.data).toEqual({ size: 20 }),
  },
  {
    method: 'POST',
    url: '/v1/transit/encrypt/walk',
    body: { plaintext: b64('walk the table') },
    status: 200,
    check: (r) => {
      state.ct = r.json.data.ciphertext;
      expect(state.ct).toMatch(/^vault:v2:/);
    },
  },
  {
    method: 'POST',
    url: '/v1/transit/decrypt/walk',
    body: () => ({ ciphertext: state.ct }),
    status: 200,
    check: (r) => expect(r.json.data.plaintext).toBe(b64('walk the table')),
  },
  {
    method: 'POST',
    url: '/v1/transit/rewrap/walk',
    body: () => ({ ciphertext: state.ct }),
    status: 200,
    check: (r) => expect(r.json.data.ciphertext).toMatch(/^vault:v2:/),
  },
  {
    method: 'POST',
    url: '/v1/transit/datakey/plaintext/walk',
    body: { bits: 256 },
    status: 200,
    check: (r) => expect(Buffer.from(r.json.data.plaintext, 'base64')).toHaveLength(32),
  },
  {
    method: 'POST',
    url: '/v1/transit/random/16',
    body: { format: 'hex' },
    status: 200,
    check: (r) => expect(r.json.data.random_bytes).toMatch(/^[0-9a-f]{32}$/),
  },
  {
    method: 'POST',
    url: '/v1/transit/hash/sha2-512',
    body: { input: b64('abc') },
    status: 200,
    check: (r) => expect(r.json.data.sum).toMatch(/^ddaf35a193617aba/),
  },
  {
    method: 'POST',
    url: '/v1/transit/hmac/walk/sha2-256',
    body: { input: b64('abc') },
    status: 200,
    check: (r) => {
      state.hmac = r.json.data.hmac;
    },
  },
  {
    method: 'POST',
    url: '/v1/transit/verify/walk/sha2-256',
    body: () => ({ input: b64('abc'), hmac: state.hmac }),
    status: 200,
    check: (r) => expect(r.json.data.valid).toBe(true),
  },
  { method: 'DELETE', url: '/v1/transit/keys/walk', status: 204 },
];
