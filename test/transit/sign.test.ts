/**
 * Sign and verify through the engine, every signing type on both crypto
 * backends: each engine verifies what the other signs (one shared storage);
 * node:crypto verifies noble-made signatures and the noble backend verifies
 * node-made ones, from the exported public key; every hash algorithm;
 * prehashed input; RSA PSS salt lengths and PKCS#1 v1.5; `jws` marshaling;
 * batches. Derived Ed25519 and key versions: `sign-versions.test.ts`.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  b64,
  createSigningKeys,
  ECDSA_TYPES,
  enginePair,
  JWS_BYTES,
  keyNames,
  NODE_HASH,
  nobleVerifies,
  nodeVerifies,
  type Pair,
  publicKeyObject,
  RSA_TYPES,
  SIGNING_TYPES,
  signatureBytes,
} from './asym-support.js';
import { expectError } from './support.js';

const TEXT = 'the quick brown fox';
const INPUT = b64(TEXT);
const DATA = new TextEncoder().encode(TEXT);
const digest = (h: string, d: Uint8Array = DATA): Uint8Array =>
  new Uint8Array(createHash(h).update(d).digest());

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  await createSigningKeys(pair);
});

describe.each(SIGNING_TYPES)('%s', (type) => {
  it('each backend verifies what the other signs; tampering is rejected', async () => {
    for (const name of keyNames(type)) {
      for (const [, signer] of pair.engines) {
        const { signature, key_version } = await signer.sign(name, { input: INPUT });
        expect(key_version).toBe(1);
        expect(signature).toMatch(/^vault:v1:[A-Za-z0-9+/]+=*$/);
        for (const [, verifier] of pair.engines) {
          expect((await verifier.verify(name, { input: INPUT, signature })).valid).toBe(true);
          expect((await verifier.verify(name, { input: b64('other'), signature })).valid).toBe(
            false,
          );
        }
      }
    }
  });

  it('node:crypto verifies noble-made signatures, noble verifies node-made ones', async () => {
    for (const name of keyNames(type)) {
      const pem = (await pair.node.exportKey('public-key', name, 1, { format: 'pem' })).keys['1'];
      const pub = createPublicKey(pem as string);
      const byNoble = await pair.noble.sign(name, { input: INPUT });
      expect(nodeVerifies(type, pub, DATA, signatureBytes(byNoble.signature))).toBe(true);
      const byNode = await pair.node.sign(name, { input: INPUT });
      expect(await nobleVerifies(type, pem as string, DATA, signatureBytes(byNode.signature))).toBe(
        true,
      );
      expect(nodeVerifies(type, pub, digest('sha256'), signatureBytes(byNoble.signature))).toBe(
        false,
      );
    }
  });

  it('jws marshaling: URL-safe base64 without padding, verified in both engines and by node', async () => {
    const name = keyNames(type)[0] as string;
    const pub = await publicKeyObject(pair.node, name);
    for (const [, signer] of pair.engines) {
      const { signature } = await signer.sign(name, { input: INPUT, marshaling_algorithm: 'jws' });
      expect(signature).toMatch(/^vault:v1:[A-Za-z0-9_-]+$/);
      const bytes = signatureBytes(signature);
      if (type in JWS_BYTES) expect(bytes.length).toBe(JWS_BYTES[type]);
      expect(nodeVerifies(type, pub, DATA, bytes, { jws: true })).toBe(true);
      for (const [, verifier] of pair.engines) {
        const r = await verifier.verify(name, {
          input: INPUT,
          signature,
          marshaling_algorithm: 'jws',
        });
        expect(r.valid).toBe(true);
      }
    }
  });

  it('batch: references echoed, a bad item fails alone, key_version 0 on error', async () => {
    const name = keyNames(type)[0] as string;
    const signed = await pair.noble.sign(name, {
      batch_input: [
        { input: INPUT, reference: 'a' },
        { input: '%%%', reference: 'bad' },
        { input: b64('second'), reference: 'c' },
      ],
    });
    const [a, bad, c] = signed.batch_results;
    expect(a?.reference).toBe('a');
    expect(a?.key_version).toBe(1);
    expect(bad).toEqual({
      key_version: 0,
      error: 'unable to decode input as base64: illegal base64 data at input byte 0',
      reference: 'bad',
    });
    expect(c?.signature).toMatch(/^vault:v1:/);
    const verified = await pair.node.verify(name, {
      batch_input: [
        { input: INPUT, signature: a?.signature, reference: 'a' },
        { input: INPUT, signature: c?.signature, reference: 'wrong' },
        { input: INPUT, signature: 'vault:v9:AAAA', reference: 'new' },
      ],
    });
    expect(verified.batch_results).toEqual([
      { valid: true, reference: 'a' },
      { valid: false, reference: 'wrong' },
      { valid: false, error: 'invalid signature: version is too new', reference: 'new' },
    ]);
  });
});

describe('hash algorithms', () => {
  const hashes = Object.keys(NODE_HASH);

  it.each(ECDSA_TYPES)('%s: every hash, node:crypto agrees', async (type) => {
    const pub = await publicKeyObject(pair.node, type);
    for (const hash_algorithm of hashes) {
      for (const [, signer] of pair.engines) {
        const { signature } = await signer.sign(type, { input: INPUT, hash_algorithm });
        const sig = signatureBytes(signature);
        expect(nodeVerifies(type, pub, DATA, sig, { hash: NODE_HASH[hash_algorithm] })).toBe(true);
        const other = hash_algorithm === 'sha2-256' ? 'sha2-512' : 'sha2-256';
        const v = await pair.noble.verify(type, { input: INPUT, signature, hash_algorithm });
        expect(v.valid, hash_algorithm).toBe(true);
        const w = await pair.node.verify(type, { input: INPUT, signature, hash_algorithm: other });
        expect(w.valid).toBe(false);
      }
    }
  });

  it('rsa-2048: every hash with PSS and PKCS#1 v1.5, node:crypto agrees', async () => {
    const pub = await publicKeyObject(pair.node, 'rsa-2048');
    for (const hash_algorithm of hashes) {
      for (const signature_algorithm of ['pss', 'pkcs1v15'] as const) {
        for (const [, signer] of pair.engines) {
          const req = { input: INPUT, hash_algorithm, signature_algorithm };
          const { signature } = await signer.sign('rsa-2048', req);
          const opts = {
            hash: NODE_HASH[hash_algorithm],
            pkcs1: signature_algorithm === 'pkcs1v15',
          };
          expect(nodeVerifies('rsa-2048', pub, DATA, signatureBytes(signature), opts)).toBe(true);
          for (const [, verifier] of pair.engines) {
            expect((await verifier.verify('rsa-2048', { ...req, signature })).valid).toBe(true);
          }
        }
      }
    }
  });

  it('the hash can come as the deprecated `algorithm` field', async () => {
    const { signature } = await pair.node.sign('ecdsa-p256', {
      input: INPUT,
      algorithm: 'sha2-512',
    });
    const pub = await publicKeyObject(pair.node, 'ecdsa-p256');
    expect(
      nodeVerifies('ecdsa-p256', pub, DATA, signatureBytes(signature), { hash: 'sha512' }),
    ).toBe(true);
  });

  it('ed25519 ignores hash_algorithm and prehashed (pure Ed25519, deterministic)', async () => {
    const base = await pair.node.sign('ed25519', { input: INPUT });
    for (const hash_algorithm of [...hashes, 'none']) {
      const req = {
        input: INPUT,
        hash_algorithm,
        prehashed: true,
        signature_algorithm: 'pkcs1v15',
      };
      for (const [, t] of pair.engines) {
        expect((await t.sign('ed25519', req)).signature).toBe(base.signature);
        expect((await t.verify('ed25519', { ...req, signature: base.signature })).valid).toBe(true);
      }
    }
  });
});

describe('prehashed input', () => {
  it('ECDSA signs a caller digest; node verifies it against the message', async () => {
    for (const [hash_algorithm, h] of [
      ['sha2-256', 'sha256'],
      ['sha2-384', 'sha384'],
      ['sha3-512', 'sha3-512'],
    ] as const) {
      const input = Buffer.from(digest(h)).toString('base64');
      for (const type of ECDSA_TYPES) {
        const pub = await publicKeyObject(pair.node, type);
        for (const [, t] of pair.engines) {
          const { signature } = await t.sign(type, { input, prehashed: true, hash_algorithm });
          expect(nodeVerifies(type, pub, DATA, signatureBytes(signature), { hash: h })).toBe(true);
          const v = await t.verify(type, { input, prehashed: true, hash_algorithm, signature });
          expect(v.valid).toBe(true);
        }
      }
    }
  });

  it('RSA PKCS#1 v1.5 over a digest equals the signature over the message', async () => {
    const input = Buffer.from(digest('sha384')).toString('base64');
    for (const type of RSA_TYPES) {
      for (const [, t] of pair.engines) {
        const opts = { hash_algorithm: 'sha2-384', signature_algorithm: 'pkcs1v15' } as const;
        const plain = await t.sign(type, { input: INPUT, ...opts });
        const pre = await t.sign(type, { input, prehashed: true, ...opts });
        expect(pre.signature).toBe(plain.signature);
      }
    }
  });

  it('RSA PSS over a digest verifies against the message', async () => {
    const input = Buffer.from(digest('sha256')).toString('base64');
    const pub = await publicKeyObject(pair.node, 'rsa-3072');
    for (const [, t] of pair.engines) {
      const { signature } = await t.sign('rsa-3072', { input, prehashed: true });
      expect(nodeVerifies('rsa-3072', pub, DATA, signatureBytes(signature))).toBe(true);
      expect((await t.verify('rsa-3072', { input: INPUT, signature })).valid).toBe(true);
    }
  });

  it('a digest of the wrong length for the hash is a clear user error', async () => {
    for (const [, t] of pair.engines) {
      await expectError(
        t.sign('rsa-2048', { input: b64('short'), prehashed: true }),
        'invalid_request',
        /digest.*32 bytes/,
      );
    }
  });
});

describe('RSA PSS salt_length', () => {
  // rsa-2048 with sha2-256: the largest salt is 256 - 2 - 32 = 222 bytes.
  const MAX = 222;

  it('auto (default, "auto" or "0") uses the largest salt; hash uses 32; an integer is exact', async () => {
    const pub = await publicKeyObject(pair.node, 'rsa-2048');
    const cases: Array<[string | number | undefined, number]> = [
      [undefined, MAX],
      ['auto', MAX],
      ['AUTO', MAX],
      ['0', MAX],
      ['hash', 32],
      ['-1', 32],
      [20, 20],
      ['1', 1],
      [String(MAX), MAX],
    ];
    for (const [salt_length, bytes] of cases) {
      for (const [, t] of pair.engines) {
        const { signature } = await t.sign('rsa-2048', { input: INPUT, salt_length });
        const sig = signatureBytes(signature);
        expect(
          nodeVerifies('rsa-2048', pub, DATA, sig, { saltLength: bytes }),
          `${salt_length}`,
        ).toBe(true);
        // auto-detect on verify, and the exact length.
        expect((await t.verify('rsa-2048', { input: INPUT, signature })).valid).toBe(true);
        const exact = await t.verify('rsa-2048', { input: INPUT, signature, salt_length: bytes });
        expect(exact.valid).toBe(true);
        const wrong = bytes === 20 ? 21 : 20;
        const off = await t.verify('rsa-2048', { input: INPUT, signature, salt_length: wrong });
        expect(off.valid).toBe(false);
      }
    }
  });

  it('out of range: Vault messages, before or after the key is known', async () => {
    for (const [, t] of pair.engines) {
      await expectError(
        t.sign('rsa-2048', { input: INPUT, salt_length: MAX + 1 }),
        'invalid_request',
        `requested salt length ${MAX + 1} is invalid`,
      );
      await expectError(
        t.verify('rsa-2048', { input: INPUT, signature: 'vault:v1:AAAA', salt_length: '9999' }),
        'invalid_request',
        'requested salt length 9999 is invalid',
      );
      await expectError(
        t.sign('rsa-2048', { input: INPUT, salt_length: '-2' }),
        'invalid_request',
        'salt length is invalid: -2',
      );
      await expectError(
        t.sign('rsa-2048', { input: INPUT, salt_length: 'big' }),
        'invalid_request',
        "salt length neither 'auto', 'hash', nor an int: big",
      );
      // The max depends on the hash: sha2-512 leaves 256 - 2 - 64 = 190.
      await expectError(
        t.sign('rsa-2048', { input: INPUT, salt_length: 191, hash_algorithm: 'sha2-512' }),
        'invalid_request',
        'requested salt length 191 is invalid',
      );
    }
  });
});
