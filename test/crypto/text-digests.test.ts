/**
 * The optional text forms of the backend's digest, HMAC and AEAD open
 * (`digestText`, `hmacText`, src/crypto/node/hash.ts; `aeadOpenText`,
 * src/crypto/node/aead.ts, which Wycheproof's AEAD vectors also run through):
 * the node backend has them, and each
 * must equal the hex or base64 of the byte form over the concatenated parts —
 * checked against both backends' byte forms, so noble's pure-JS hashes are the
 * independent side. Then every caller that uses them when present (the HMAC
 * and hash endpoints, decrypt, the token store, the audit hasher; all but HMAC
 * through src/crypto/text.ts) gives the same text as with a backend that lacks them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { saltHasher } from '../../src/audit/hash.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { AeadAuthError, type CryptoBackend, type HashName } from '../../src/crypto/backend.js';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { aeadOpenText } from '../../src/crypto/text.js';
import { concatBytes, encodeBase64, encodeHex, utf8 } from '../../src/encoding.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { AEAD_AADS, AEAD_CASES, AEAD_KEY, AEAD_LENGTHS, AEAD_NONCE } from './aead-cases.js';

const HASHES: HashName[] = [
  'sha1',
  'sha224',
  'sha256',
  'sha384',
  'sha512',
  'sha3-224',
  'sha3-256',
  'sha3-384',
  'sha3-512',
];

/** `nodeBackend` without the text forms: every caller's fallback path. */
const bytesOnly: CryptoBackend = {
  ...nodeBackend,
  digestText: undefined,
  hmacText: undefined,
  aeadOpenText: undefined,
  aeadSealText: undefined,
};

/** The bytes `parts` stand for: strings as UTF-8, one after another. */
const joined = (parts: readonly (Uint8Array | string)[]): Uint8Array =>
  concatBytes(...parts.map((p) => (typeof p === 'string' ? utf8(p) : p)));

const encode = (bytes: Uint8Array, encoding: 'hex' | 'base64') =>
  encoding === 'hex' ? encodeHex(bytes) : encodeBase64(bytes);

const digestText = nodeBackend.digestText as NonNullable<CryptoBackend['digestText']>;
const hmacText = nodeBackend.hmacText as NonNullable<CryptoBackend['hmacText']>;

/** Parts that exercise UTF-8: ASCII, Latin-1, a BMP character, an astral one, lone surrogates. */
const STRINGS = ['', 'hvs.abc', 'é', '€', '😀', '\ud800', 'x\udfffy', '\udbff\udc00'];

describe('digestText and hmacText (node backend)', () => {
  it('exist on the node backend and not on noble (which gains nothing from them)', () => {
    expect(typeof nodeBackend.digestText).toBe('function');
    expect(typeof nodeBackend.hmacText).toBe('function');
    expect(nobleBackend.digestText).toBeUndefined();
    expect(nobleBackend.hmacText).toBeUndefined();
    expect(typeof nodeBackend.aeadOpenText).toBe('function');
    expect(nobleBackend.aeadOpenText).toBeUndefined();
  });

  it('equal the encoded byte forms of both backends, every hash, both encodings', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
    const partLists: (Uint8Array | string)[][] = [
      [],
      [new Uint8Array(0)],
      [bytes],
      [bytes.subarray(3, 200)], // a view that does not start at its buffer's start
      [bytes.subarray(0, 10), 'hvs.token', bytes.subarray(10, 40)],
      [...STRINGS],
      // Around the one-shot path's 1024-byte buffer (hash.ts): fits, just does
      // not fit, and strings whose UTF-8 bound (3 bytes a unit) is or is not within it.
      [new Uint8Array(1024).fill(1)],
      [new Uint8Array(1025).fill(2)],
      [bytes, bytes, bytes, bytes.subarray(0, 124)],
      [bytes, bytes, bytes, bytes.subarray(0, 125)],
      ['€'.repeat(341)],
      ['€'.repeat(342)],
      [new Uint8Array(1), 'a'.repeat(341)],
      ['\ud800'.repeat(400)],
    ];
    const keys = [new Uint8Array(0), new Uint8Array([1]), bytes.subarray(0, 32), bytes]; // 300 > every block size
    for (const hash of HASHES) {
      for (const encoding of ['hex', 'base64'] as const) {
        for (const parts of partLists) {
          const data = joined(parts);
          const want = encode(nobleBackend.digest(hash, data), encoding);
          expect(encode(nodeBackend.digest(hash, data), encoding)).toBe(want);
          expect(digestText(hash, parts, encoding), `${hash} ${encoding}`).toBe(want);
          for (const key of keys) {
            const mac = encode(nobleBackend.hmac(hash, key, data), encoding);
            expect(hmacText(hash, key, parts, encoding), `${hash} ${key.length}`).toBe(mac);
          }
        }
      }
    }
  });

  it('give the same answers in any order of long and short inputs (nothing left over between calls)', () => {
    const long = ['x'.repeat(2000)];
    const short = ['hvs.token'];
    const want = encode(nobleBackend.digest('sha256', joined(short)), 'hex');
    for (let i = 0; i < 3; i++) {
      expect(digestText('sha256', short, 'hex')).toBe(want);
      digestText('sha256', long, 'hex');
      expect(() => digestText('sha256', ['ok', 123 as never], 'hex')).toThrow(TypeError);
    }
    expect(digestText('sha256', short, 'hex')).toBe(want);
  });

  it('hash any string parts as their UTF-8 (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary' }),
            fc.uint8Array({ maxLength: 64 }),
            fc.string({ unit: 'binary', minLength: 300, maxLength: 600 }),
          ),
          { maxLength: 5 },
        ),
        fc.constantFrom<'hex' | 'base64'>('hex', 'base64'),
        (parts, encoding) => {
          const data = joined(parts);
          expect(digestText('sha256', parts, encoding)).toBe(
            encode(nobleBackend.digest('sha256', data), encoding),
          );
          const key = new Uint8Array(32).fill(9);
          expect(hmacText('sha256', key, parts, encoding)).toBe(
            encode(nobleBackend.hmac('sha256', key, data), encoding),
          );
        },
      ),
    );
  });

  it('refuse what the byte forms refuse, with the same error types', () => {
    const key = new Uint8Array(32);
    expect(() => digestText('md5' as HashName, ['x'], 'hex')).toThrow(RangeError);
    expect(() => hmacText('md5' as HashName, key, ['x'], 'hex')).toThrow(RangeError);
    for (const encoding of ['latin1', 'utf8', 'buffer', 'base64url', ''] as never[]) {
      expect(() => digestText('sha256', ['x'], encoding)).toThrow(RangeError);
      expect(() => hmacText('sha256', key, ['x'], encoding)).toThrow(RangeError);
    }
    for (const bad of [123, null, undefined, {}, [1, 2], new ArrayBuffer(2)] as never[]) {
      expect(() => digestText('sha256', [bad], 'hex')).toThrow(TypeError);
      expect(() => hmacText('sha256', key, [bad], 'hex')).toThrow(TypeError);
      expect(() => hmacText('sha256', bad, ['x'], 'hex')).toThrow(TypeError);
    }
  });
});

describe('aeadOpenText (node backend, and the fallback of src/crypto/text.ts)', () => {
  const key = AEAD_KEY;
  const nonce = AEAD_NONCE;
  const openText = nodeBackend.aeadOpenText as NonNullable<CryptoBackend['aeadOpenText']>;

  it('equals the encoded aeadOpen of both backends: every algorithm, lengths, AAD, views', () => {
    for (const [alg, k, n] of AEAD_CASES) {
      for (const length of AEAD_LENGTHS) {
        for (const aad of AEAD_AADS) {
          const plain = Uint8Array.from({ length }, (_, i) => (i * 31) & 255);
          const sealed = nobleBackend.aeadSeal(alg, k, n, plain, aad);
          // A view that does not start at its buffer's start, as decrypt's payload is.
          const view = new Uint8Array(sealed.length + 5).subarray(5);
          view.set(sealed);
          for (const encoding of ['base64', 'hex'] as const) {
            const want = encode(plain, encoding);
            expect(openText(alg, k, n, view, aad, encoding), `${alg} ${length}`).toBe(want);
            expect(aeadOpenText(nobleBackend, alg, k, n, view, aad, encoding)).toBe(want);
          }
        }
      }
    }
  });

  it('refuses what aeadOpen refuses, with its error types, and another encoding', () => {
    const sealed = nodeBackend.aeadSeal('aes-gcm', key, nonce, utf8('secret'));
    const bad = Uint8Array.from(sealed);
    bad[0] = (bad[0] as number) ^ 1;
    expect(() => openText('aes-gcm', key, nonce, bad, undefined, 'base64')).toThrow(AeadAuthError);
    expect(() => openText('aes-gcm', key, nonce, sealed, utf8('x'), 'base64')).toThrow(
      AeadAuthError,
    );
    expect(() => openText('aes-gcm', key.subarray(0, 20), nonce, sealed, undefined, 'hex')).toThrow(
      RangeError,
    );
    expect(() => openText('aes-gcm', key, nonce, sealed.subarray(0, 10), undefined, 'hex')).toThrow(
      RangeError,
    );
    for (const encoding of ['latin1', 'utf8', 'base64url', ''] as never[]) {
      expect(() => openText('aes-gcm', key, nonce, sealed, undefined, encoding)).toThrow(
        RangeError,
      );
    }
  });

  it('the fallback wipes the bytes it encoded', () => {
    const sealed = nobleBackend.aeadSeal('aes-gcm', key, nonce, utf8('secret'));
    let given: Uint8Array | undefined;
    const spy = {
      aeadOpen: (...args: Parameters<CryptoBackend['aeadOpen']>) => {
        given = nobleBackend.aeadOpen(...args);
        return given;
      },
    };
    expect(aeadOpenText(spy, 'aes-gcm', key, nonce, sealed, undefined, 'base64')).toBe(
      encodeBase64(utf8('secret')),
    );
    expect(given).toEqual(new Uint8Array(6));
  });
});

describe('callers give the same text with and without the text forms', () => {
  it('transit.decrypt (and rewrap, which opens to bytes), single and batch, every key kind', async () => {
    const storage = new MemoryStorage();
    const fast = new Transit({ storage, autoRotate: false });
    const slow = new Transit({ storage, autoRotate: false, crypto: bytesOnly });
    const noble = new Transit({ storage, autoRotate: false, crypto: 'noble' });
    const context = encodeBase64(utf8('tenant-1'));
    const kinds: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['gcm', {}, {}],
      ['gcm128', { type: 'aes128-gcm96' }, {}],
      ['chacha', { type: 'chacha20-poly1305' }, {}],
      ['derived', { derived: true }, { context }],
      ['convergent', { derived: true, convergent_encryption: true }, { context }],
      ['rsa', { type: 'rsa-2048' }, {}],
    ];
    for (const [name, create, extra] of kinds) {
      await fast.createKey(name, create);
      const long = new Uint8Array(name === 'rsa' ? 150 : 5000).fill(7); // RSA-OAEP: < 190 bytes
      for (const plain of [new Uint8Array(0), utf8('hello'), long]) {
        const plaintext = encodeBase64(plain);
        const { ciphertext } = await noble.encrypt(name, { plaintext, ...extra });
        for (const t of [fast, slow, noble]) {
          expect((await t.decrypt(name, { ciphertext, ...extra })).plaintext, name).toBe(plaintext);
          const wrapped = (await t.rewrap(name, { ciphertext, ...extra })).ciphertext;
          expect((await noble.decrypt(name, { ciphertext: wrapped, ...extra })).plaintext).toBe(
            plaintext,
          );
        }
        // Every item carries the context or none does (Vault refuses a mix).
        const batch = {
          batch_input: [
            { ciphertext, ...extra },
            { ciphertext: 'vault:v1:AAAA', ...extra },
          ],
        };
        expect(await fast.decrypt(name, batch)).toEqual(await noble.decrypt(name, batch));
      }
    }
    await Promise.all([fast.close(), slow.close(), noble.close()]);
  });

  it('transit.hmac and transit.hash', async () => {
    const storage = new MemoryStorage();
    const fast = new Transit({ storage, autoRotate: false });
    const slow = new Transit({ storage, autoRotate: false, crypto: bytesOnly });
    const noble = new Transit({ storage, autoRotate: false, crypto: 'noble' });
    await fast.createKey('h', { type: 'hmac', key_size: 48 });
    await fast.createKey('a');
    const input = encodeBase64(utf8('the quick brown fox'));
    for (const key of ['h', 'a']) {
      for (const algorithm of ['sha2-256', 'sha2-512', 'sha3-256', 'sha1']) {
        const want = (await noble.hmac(key, { input, algorithm })).hmac;
        expect(want).toMatch(/^vault:v1:[A-Za-z0-9+/]+=*$/);
        expect((await fast.hmac(key, { input, algorithm })).hmac).toBe(want);
        expect((await slow.hmac(key, { input, algorithm })).hmac).toBe(want);
        expect(
          (await fast.verify(key, { input, hmac: want, hash_algorithm: algorithm })).valid,
        ).toBe(true);
      }
      const batch = { batch_input: [{ input }, { input: '' }, { input: 'not base64!' }] };
      expect(await fast.hmac(key, batch)).toEqual(await noble.hmac(key, batch));
    }
    for (const format of ['hex', 'base64'] as const) {
      for (const algorithm of ['sha2-256', 'sha2-384', 'sha3-512']) {
        const want = (await noble.hash({ input, format, algorithm })).sum;
        expect((await fast.hash({ input, format, algorithm })).sum).toBe(want);
        expect((await slow.hash({ input, format, algorithm })).sum).toBe(want);
      }
    }
  });

  it('the token store: a token made with one backend is found with the other', async () => {
    const storage = new MemoryStorage();
    const fast = new TokenStore({ storage, crypto: nodeBackend });
    const slow = new TokenStore({ storage, crypto: bytesOnly });
    const noble = new TokenStore({ storage, crypto: nobleBackend });
    const a = await fast.createRoot();
    const b = await noble.createRoot();
    for (const store of [fast, slow, noble]) {
      expect((await store.authenticate(a))?.policies).toEqual(['root']);
      expect((await store.authenticate(b))?.policies).toEqual(['root']);
      expect(await store.authenticate(`${a}x`)).toBeUndefined();
    }
  });

  it('the audit hasher', () => {
    const salt = new Uint8Array(32).fill(5);
    const hashers = [nodeBackend, bytesOnly, nobleBackend].map((b) => saltHasher(b, salt));
    for (const value of ['hvs.abc', '', 'é😀', '\ud800']) {
      const want = hashers[2]?.(value);
      expect(want).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      for (const h of hashers) expect(h(value)).toBe(want);
    }
  });
});
