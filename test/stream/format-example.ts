/**
 * The worked example of docs/stream-format.md, regenerated: an engine whose
 * CSPRNG is replaced by a fixed SHA-256 counter stream (so every random
 * value — key material, data key, transit nonce, salt — is reproducible),
 * an exportable key, and one short message through `encryptStream`. The
 * intermediate values are recomputed from the envelope with the primitives
 * the format names. `test/stream/format-doc.test.ts` checks the document
 * against this; run this file with tsx to print the values.
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type { CryptoBackend } from '../../src/crypto/backend.js';
import {
  COBBLESTONE_256,
  deriveKeys,
  HEADER_SIZE,
  SALT_SIZE,
} from '../../src/stream/cobblestone.js';
import { Transit } from '../../src/transit/transit.js';
import { BACKENDS } from '../helpers/backends.js';
import { encryptAll } from './support.js';

/** The example's plaintext. */
export const EXAMPLE_TEXT = 'Hello, large objects!\n';

/** `backend` with `randomBytes` replaced by SHA-256("tks1 example" ‖ BE32(i)) blocks. */
function fixedRandom(backend: CryptoBackend): CryptoBackend {
  let counter = 0;
  const randomBytes = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    for (let off = 0; off < n; off += 32) {
      const block = createHash('sha256')
        .update('tks1 example')
        .update(Buffer.from([counter >>> 24, counter >>> 16, counter >>> 8, counter]))
        .digest();
      counter++;
      out.set(block.subarray(0, Math.min(32, n - off)), off);
    }
    return out;
  };
  return { ...backend, name: `${backend.name}-fixed`, randomBytes };
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Every value the document shows, as `name → text`. */
export async function exampleValues(backend: CryptoBackend): Promise<Record<string, string>> {
  const transit = new Transit({ crypto: fixedRandom(backend), autoRotate: false });
  await transit.createKey('docs', { exportable: true });
  const exported = await transit.exportKey('encryption-key', 'docs', 1);
  const keyMaterial = Object.values(exported.keys)[0] as string;
  const env = await encryptAll(transit, 'docs', new TextEncoder().encode(EXAMPLE_TEXT));
  const len = ((env[4] ?? 0) << 8) | (env[5] ?? 0);
  const prefix = env.subarray(0, 6 + len);
  const wrapped = new TextDecoder().decode(prefix.subarray(6));
  const { plaintext: dataKeyB64 } = await transit.decrypt('docs', { ciphertext: wrapped });
  const dataKey = Buffer.from(dataKeyB64, 'base64');
  const header = env.subarray(6 + len, 6 + len + HEADER_SIZE);
  const keys = deriveKeys(backend, COBBLESTONE_256, dataKey, header.subarray(0, SALT_SIZE), prefix);
  await transit.close();
  return {
    'transit key (v1, base64)': keyMaterial,
    plaintext: JSON.stringify(EXAMPLE_TEXT),
    'data key': hex(dataKey),
    'wrapped data key': wrapped,
    'envelope prefix': hex(prefix),
    salt: hex(header.subarray(0, SALT_SIZE)),
    commitment: hex(header.subarray(SALT_SIZE)),
    'chunk key': hex(keys.key),
    'base nonce': hex(keys.baseNonce),
    'chunk 0 (final)': hex(env.subarray(6 + len + HEADER_SIZE)),
    envelope: hex(env),
    'envelope length': String(env.length),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [, backend] = BACKENDS[0] as (typeof BACKENDS)[0];
  for (const [k, v] of Object.entries(await exampleValues(backend))) console.log(`${k}: ${v}`);
}
