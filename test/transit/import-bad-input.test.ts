/**
 * The bad-input matrix (test/helpers/bad-inputs.ts) against every parameter
 * of the key-mobility methods: each wrong-typed or malformed value is an
 * `invalid_request` TransitError (never a TypeError) and storage is unchanged.
 */
import { TransitError } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BAD_OPTIONAL_BYTES,
  type BadInput,
  NOT_A_DURATION,
  NOT_A_NAME,
  NOT_AN_OBJECT,
  NOT_BOOLEAN,
  NOT_INTEGER,
  NOT_STRING,
} from '../helpers/bad-inputs.js';
import { type MobilityPair, mobilityPair, wrapForImport } from './import-support.js';
import { reasonOf, snapshot } from './support.js';

let pair: MobilityPair;
let t: MobilityPair['engines'][number][1];
beforeAll(async () => {
  pair = await mobilityPair();
  t = (pair.engines[0] as MobilityPair['engines'][number])[1];
});

describe('bad inputs to every mobility method: invalid_request, storage unchanged', () => {
  it('importKey, importKeyVersion, byokExport', async () => {
    await t.createKey('bi-src', { exportable: true });
    await t.importKey('bi-dest', { type: 'rsa-4096', public_key: pair.wrap });
    await t.importKey('bi-imp', {
      type: 'aes256-gcm96',
      ciphertext: wrapForImport(pair.wrap, new Uint8Array(32)),
    });
    const blob = wrapForImport(pair.wrap, new Uint8Array(32));
    const calls: [string, readonly BadInput[], (v: unknown) => Promise<unknown>][] = [
      [
        'import name',
        NOT_A_NAME,
        (v) => t.importKey(v as string, { type: 'aes256-gcm96', ciphertext: blob }),
      ],
      ['import request', NOT_AN_OBJECT, (v) => t.importKey('bi-x', v as never)],
      [
        'import ciphertext',
        BAD_OPTIONAL_BYTES,
        (v) => t.importKey('bi-x', { type: 'aes256-gcm96', ciphertext: v as string }),
      ],
      [
        'import type',
        NOT_STRING,
        (v) => t.importKey('bi-x', { type: v as string, ciphertext: blob }),
      ],
      [
        'import hash_function',
        NOT_STRING,
        (v) =>
          t.importKey('bi-x', {
            type: 'aes256-gcm96',
            ciphertext: blob,
            hash_function: v as string,
          }),
      ],
      [
        'import public_key',
        NOT_STRING,
        (v) => t.importKey('bi-x', { type: 'ecdsa-p256', public_key: v as string }),
      ],
      [
        'import allow_rotation',
        NOT_BOOLEAN,
        (v) =>
          t.importKey('bi-x', {
            type: 'aes256-gcm96',
            ciphertext: blob,
            allow_rotation: v as boolean,
          }),
      ],
      [
        'import derived',
        NOT_BOOLEAN,
        (v) =>
          t.importKey('bi-x', { type: 'aes256-gcm96', ciphertext: blob, derived: v as boolean }),
      ],
      [
        'import context',
        BAD_OPTIONAL_BYTES,
        (v) =>
          t.importKey('bi-x', {
            type: 'aes256-gcm96',
            ciphertext: blob,
            derived: true,
            context: v as string,
          }),
      ],
      [
        'import auto_rotate_period',
        NOT_A_DURATION,
        (v) =>
          t.importKey('bi-x', {
            type: 'aes256-gcm96',
            ciphertext: blob,
            allow_rotation: true,
            auto_rotate_period: v as string,
          }),
      ],
      ['import_version request', NOT_AN_OBJECT, (v) => t.importKeyVersion('bi-imp', v as never)],
      [
        'import_version ciphertext',
        BAD_OPTIONAL_BYTES,
        (v) => t.importKeyVersion('bi-imp', { ciphertext: v as string }),
      ],
      [
        'import_version version',
        NOT_INTEGER,
        (v) => t.importKeyVersion('bi-imp', { ciphertext: blob, version: v as number }),
      ],
      ['byok destination', NOT_A_NAME, (v) => t.byokExport(v as string, 'bi-src')],
      ['byok source', NOT_A_NAME, (v) => t.byokExport('bi-dest', v as string)],
      ['byok options', NOT_AN_OBJECT, (v) => t.byokExport('bi-dest', 'bi-src', v as never)],
      ['byok hash', NOT_STRING, (v) => t.byokExport('bi-dest', 'bi-src', { hash: v as string })],
    ];
    for (const [what, inputs, call] of calls) {
      for (const input of inputs) {
        const before = await snapshot(pair.storage);
        const e = await reasonOf(() => call(input.value));
        expect(e, `${what} = ${input.label}`).toBeInstanceOf(TransitError);
        expect((e as TransitError).code, `${what} = ${input.label}: ${(e as Error).message}`).toBe(
          'invalid_request',
        );
        expect(await snapshot(pair.storage), `${what} = ${input.label}`).toEqual(before);
      }
    }
  });
});
