/**
 * Shared helpers of the key-mobility tests (import, import_version, BYOK,
 * wrapping key): an import blob built with node:crypto alone (RSA-OAEP with
 * MGF1 on the same hash, then `id-aes256-wrap-pad`), so the engine's own
 * wrapping code is not the one under test; engines whose wrapping key is the
 * fixed Wycheproof RSA-4096 key (RSA-4096 generation takes seconds); and
 * checks that a refused import left nothing behind. Not a test file.
 */
import {
  constants,
  createCipheriv,
  createPublicKey,
  publicEncrypt,
  randomBytes,
} from 'node:crypto';
import { MemoryStorage, Transit } from 'transitkit';
import { expect } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { WRAPPING_KEY_NAME } from '../../src/keys/names.js';
import { wycheproofRsa } from '../crypto/asymmetric-helpers.js';
import { putKnownKey, rsaMaterial } from '../helpers/known-key.js';
import { expectError, snapshot } from './support.js';

/** Wrap `material` for the wrapping key `pem` in Vault's import format (node:crypto only). */
export function wrapForImport(pem: string, material: Uint8Array, hash = 'sha256'): string {
  const ephemeral = randomBytes(32);
  const wrappedKey = publicEncrypt(
    { key: createPublicKey(pem), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hash },
    ephemeral,
  );
  const kwp = createCipheriv('id-aes256-wrap-pad', ephemeral, Buffer.from('A65959A6', 'hex'));
  const wrapped = Buffer.concat([kwp.update(material), kwp.final()]);
  return Buffer.concat([wrappedKey, wrapped]).toString('base64');
}

/** A node and a noble engine over one storage whose wrapping key is the fixed Wycheproof key. */
export interface MobilityPair {
  storage: MemoryStorage;
  engines: ReadonlyArray<readonly [string, Transit]>;
  /** The wrapping key's PEM. */
  wrap: string;
}

export async function mobilityPair(): Promise<MobilityPair> {
  const storage = new MemoryStorage();
  await putKnownKey(
    storage,
    WRAPPING_KEY_NAME,
    [{ key: new Uint8Array(0), asymmetric: rsaMaterial(wycheproofRsa(4096)) }],
    { type: 'rsa-4096' },
  );
  const node = new Transit({ storage, crypto: nodeBackend, autoRotate: false });
  const noble = new Transit({ storage, crypto: nobleBackend, autoRotate: false });
  const wrap = (await node.getWrappingKey()).public_key;
  return {
    storage,
    engines: [
      ['node', node],
      ['noble', noble],
    ],
    wrap,
  };
}

/**
 * Expect `p` to fail with `invalid_request` (message matching `message`) and
 * leave storage exactly as it was; the message must not quote `secrets`.
 */
export async function expectRefusedCleanly(
  t: Transit,
  storage: MemoryStorage,
  p: () => Promise<unknown>,
  message: string | RegExp,
  secrets: readonly Uint8Array[] = [],
): Promise<void> {
  const before = await snapshot(storage);
  const keys = (await t.listKeys()).keys;
  const e = await expectError(p, 'invalid_request', message);
  for (const s of secrets) {
    const b = Buffer.from(s);
    for (const form of [
      b.toString('base64'),
      b.toString('hex'),
      b.subarray(0, 8).toString('hex'),
    ]) {
      expect(e.message).not.toContain(form);
    }
  }
  expect(await snapshot(storage)).toEqual(before);
  expect((await t.listKeys()).keys).toEqual(keys);
}
