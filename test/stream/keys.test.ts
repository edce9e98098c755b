/**
 * The data key of a stream follows the transit key's rules, as `datakey` and
 * `decrypt` do: derived keys need the same `context` again, `keyVersion`
 * picks the wrapping version, rotation keeps old envelopes readable until
 * `min_decryption_version` passes them, convergent keys wrap fresh keys (and
 * equal plaintexts still give unrelated envelopes), RSA keys wrap with OAEP,
 * and soft-deleted keys refuse. Both backends.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { decryptAll, encryptAll, engineOn, expectCode, pattern, sameBytes } from './support.js';

const ctx = (s: string) => Buffer.from(s).toString('base64');
const wrappedOf = (env: Uint8Array) =>
  new TextDecoder().decode(env.subarray(6, 6 + (((env[4] ?? 0) << 8) | (env[5] ?? 0))));

for (const [name, backend] of BACKENDS) {
  describe(`stream keys on ${name}`, () => {
    const plain = pattern(40_000, 3);

    it('derived keys: context required, and the same one to decrypt', async () => {
      const transit = engineOn(backend);
      await transit.createKey('d', { derived: true });
      const env = await encryptAll(transit, 'd', plain, { context: ctx('tenant-a') });
      const ok = await decryptAll(transit, 'd', env, { context: ctx('tenant-a') });
      expect(ok.error).toBeUndefined();
      expect(sameBytes(ok.bytes, plain)).toBe(true);
      for (const options of [undefined, { context: ctx('tenant-b') }]) {
        const out = await decryptAll(transit, 'd', env, options);
        expectCode(out.error, 'invalid_request');
        expect(out.bytes.length).toBe(0);
      }
      // The context is the caller's; plain transit decrypt of the wrapped key agrees.
      const { plaintext } = await transit.decrypt('d', {
        ciphertext: wrappedOf(env),
        context: ctx('tenant-a'),
      });
      expect(Buffer.from(plaintext, 'base64').length).toBe(32);
      // Bytes are accepted as a context too.
      const env2 = await encryptAll(transit, 'd', plain, { context: Buffer.from('tenant-a') });
      expect((await decryptAll(transit, 'd', env2, { context: ctx('tenant-a') })).error).toBe(
        undefined,
      );
    });

    it('rotation: old envelopes stay readable until min_decryption_version passes them', async () => {
      const transit = engineOn(backend);
      await transit.createKey('r');
      const v1 = await encryptAll(transit, 'r', plain);
      await transit.rotateKey('r');
      const v2 = await encryptAll(transit, 'r', plain);
      expect(wrappedOf(v1)).toMatch(/^vault:v1:/);
      expect(wrappedOf(v2)).toMatch(/^vault:v2:/);
      const pinned = await encryptAll(transit, 'r', plain, { keyVersion: 1 });
      expect(wrappedOf(pinned)).toMatch(/^vault:v1:/);
      for (const env of [v1, v2, pinned]) {
        expect((await decryptAll(transit, 'r', env)).error).toBeUndefined();
      }
      await transit.updateKeyConfig('r', { min_decryption_version: 2 });
      const old = await decryptAll(transit, 'r', v1);
      expect(expectCode(old.error, 'invalid_request').message).toMatch(/version/);
      expect(old.bytes.length).toBe(0);
      expectCode(
        await transit.openEncrypted('r', new Blob([pinned])).catch((e: unknown) => e),
        'invalid_request',
      );
      expect((await decryptAll(transit, 'r', v2)).error).toBeUndefined();
      // min_encryption_version binds the writer as it binds transit encrypt.
      await transit.updateKeyConfig('r', { min_encryption_version: 2 });
      const refused = await encryptAll(transit, 'r', plain, { keyVersion: 1 }).catch(
        (e: unknown) => e,
      );
      expectCode(refused, 'invalid_request');
    });

    it('convergent keys wrap fresh keys: equal plaintexts give unrelated envelopes', async () => {
      const transit = engineOn(backend);
      await transit.createKey('c', { derived: true, convergent_encryption: true });
      const a = await encryptAll(transit, 'c', plain, { context: ctx('x') });
      const b = await encryptAll(transit, 'c', plain, { context: ctx('x') });
      expect(wrappedOf(a)).not.toBe(wrappedOf(b));
      expect(sameBytes(a.subarray(200), b.subarray(200))).toBe(false);
      for (const env of [a, b]) {
        const out = await decryptAll(transit, 'c', env, { context: ctx('x') });
        expect(sameBytes(out.bytes, plain)).toBe(true);
      }
    });

    it('RSA keys wrap with OAEP; signing-only and soft-deleted keys refuse', async () => {
      const transit = engineOn(backend);
      await transit.createKey('rsa', { type: 'rsa-2048' });
      const env = await encryptAll(transit, 'rsa', plain);
      expect(sameBytes((await decryptAll(transit, 'rsa', env)).bytes, plain)).toBe(true);
      await transit.createKey('gone');
      const before = await encryptAll(transit, 'gone', plain);
      await transit.softDeleteKey('gone');
      expectCode(
        await encryptAll(transit, 'gone', plain).catch((e: unknown) => e),
        'invalid_request',
      );
      expectCode((await decryptAll(transit, 'gone', before)).error, 'invalid_request');
      await transit.createKey('hmac', { type: 'hmac' });
      expectCode(
        await encryptAll(transit, 'hmac', plain).catch((e: unknown) => e),
        'invalid_request',
      );
    });
  });
}
