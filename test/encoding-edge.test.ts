/**
 * Off Node (browsers, workers, Deno without the Buffer global) the strict
 * base64 decoder in src/encoding.ts takes the @scure/base path, which by
 * itself refuses non-zero trailing bits ("QR==", "QUJ="). On Node the Buffer
 * path accepts them, as Go's base64.StdEncoding (non-Strict) does, and so
 * does Vault: the same request must decode to the same bytes on every runtime.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/** A fresh copy of a module evaluated while the `Buffer` global is absent. */
async function withoutBuffer<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  vi.stubGlobal('Buffer', undefined);
  return load();
}

describe('strict base64 off Node', () => {
  it('decodes non-zero trailing bits as on Node (Go StdEncoding)', async () => {
    const onNode = await import('../src/encoding.js');
    const edge = await withoutBuffer(() => import('../src/encoding.js'));
    for (const s of ['QR==', 'QUJ=', 'AB==', 'dGVzdB==']) {
      const expected = onNode.tryDecodeBase64(s);
      expect(expected, s).toBeDefined(); // Node (and Go) accept it
      expect(edge.tryDecodeBase64(s), s).toEqual(expected);
    }
  });

  it('accepts and decodes exactly what the Node path does (random strings)', async () => {
    const onNode = await import('../src/encoding.js');
    const edge = await withoutBuffer(() => import('../src/encoding.js'));
    const chars = [...'ABQRgw+/=-_ \n\r', 'é', '\u20ac', 'A', 'z', '9'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 16 }), (cs) => {
        const s = cs.join('');
        const want = onNode.tryDecodeBase64(s);
        const got = edge.tryDecodeBase64(s);
        expect(got, JSON.stringify(s)).toEqual(want);
      }),
      { numRuns: 20_000 },
    );
  });

  it('Transit on the noble backend without Buffer encrypts what it encrypts on Node', async () => {
    const { Transit } = await withoutBuffer(() => import('../src/index.js'));
    const { nobleBackend } = await import('../src/crypto/noble/index.js');
    const t = new Transit({ crypto: nobleBackend, autoRotate: false });
    await t.createKey('k', {});
    const { ciphertext } = await t.encrypt('k', { plaintext: 'QR==' });
    const { plaintext } = await t.decrypt('k', { ciphertext });
    expect(plaintext).toBe('QQ==');
  });
});
