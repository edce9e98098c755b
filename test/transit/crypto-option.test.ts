/**
 * The `crypto` option takes the names `backendName` reports (`'node'`,
 * `'noble'`), `'default'` or a backend object, for `Transit` and
 * `TransitNode`; anything else is `invalid_request`. (Where the platform
 * default is noble, `'node'` is refused: crypto-option-browser.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { MemoryStorage, Transit, TransitNode } from '../../src/index.js';

const INPUT = btoa('hello');

describe('crypto option', () => {
  it.each([
    ['node', 'node'],
    ['noble', 'noble'],
    ['default', 'node'],
    [undefined, 'node'],
  ] as const)('%s selects the %s backend', async (crypto, name) => {
    const t = new Transit({ autoRotate: false, ...(crypto ? { crypto } : {}) });
    expect(t.backendName).toBe(name);
    await t.createKey('k');
    const { ciphertext } = await t.encrypt('k', { plaintext: INPUT });
    expect((await t.decrypt('k', { ciphertext })).plaintext).toBe(INPUT);
    await t.close();
  });

  it("a backend object is used as is, and 'node' and 'noble' read each other's ciphertexts", async () => {
    const storage = new MemoryStorage();
    const node = new Transit({ storage, crypto: 'node', autoRotate: false });
    const noble = new Transit({ storage, crypto: nobleBackend, autoRotate: false });
    expect(noble.backendName).toBe('noble');
    await node.createKey('k', { type: 'chacha20-poly1305' });
    const a = await node.encrypt('k', { plaintext: INPUT });
    expect((await noble.decrypt('k', { ciphertext: a.ciphertext })).plaintext).toBe(INPUT);
    const b = await noble.encrypt('k', { plaintext: INPUT });
    expect((await node.decrypt('k', { ciphertext: b.ciphertext })).plaintext).toBe(INPUT);
    await node.close();
    await noble.close();
  });

  it("TransitNode takes crypto: 'node' for its barrier and engine", async () => {
    const n = new TransitNode({ storage: new MemoryStorage(), crypto: 'node' });
    const { keys } = await n.init({ secret_shares: 1, secret_threshold: 1 });
    await n.unseal({ key: keys[0] as string });
    expect(n.transit.backendName).toBe('node');
    const { ciphertext } = await n.transit.encrypt('k', { plaintext: INPUT });
    expect((await n.transit.decrypt('k', { ciphertext })).plaintext).toBe(INPUT);
    await n.close();
  });

  it.each(['Node', 'openssl', '', 'node:crypto', 42, null, {}])('%j is invalid_request', (bad) => {
    const make = () => new Transit({ autoRotate: false, crypto: bad as never });
    expect(make).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: "'crypto' must be 'node', 'noble', 'default' or a CryptoBackend",
      }),
    );
  });
});
