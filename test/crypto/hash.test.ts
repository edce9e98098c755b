/**
 * The Vault hash-name registry (src/crypto/hash.ts) and every digest of
 * fixtures/hash-vectors.json (Vault's path_hash_test.go) on every backend.
 */
import { base64, hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { isVaultHashName, VAULT_HASH_NAMES, vaultHash } from '../../src/crypto/hash.js';
import { isTransitError, TransitError } from '../../src/errors.js';
import { BACKENDS } from '../helpers/backends.js';
import { loadHashVectorsFixture } from '../helpers/vectors.js';

const fx = loadHashVectorsFixture();
const input = base64.decode(fx.input_b64);

describe('registry', () => {
  it('lists the nine Vault names, without "none"', () => {
    expect([...VAULT_HASH_NAMES]).toEqual([
      'sha1',
      'sha2-224',
      'sha2-256',
      'sha2-384',
      'sha2-512',
      'sha3-224',
      'sha3-256',
      'sha3-384',
      'sha3-512',
    ]);
    expect(Object.isFrozen(VAULT_HASH_NAMES)).toBe(true);
  });

  it('resolves each name to a backend hash whose digest has the stated size', () => {
    for (const name of VAULT_HASH_NAMES) {
      const h = vaultHash(name);
      expect(h.vaultName).toBe(name);
      expect(isVaultHashName(name)).toBe(true);
      for (const [backendName, b] of BACKENDS) {
        expect(b.digest(h.name, input).length, `${backendName} ${name}`).toBe(h.size);
      }
    }
    expect(vaultHash('sha2-256')).toMatchObject({ name: 'sha256', size: 32 });
    expect(vaultHash('sha3-512')).toMatchObject({ name: 'sha3-512', size: 64 });
    expect(vaultHash('sha1')).toMatchObject({ name: 'sha1', size: 20 });
  });

  it.each([
    'foobar', // the fixture's error case
    'none', // signing-only pseudo hash, handled elsewhere
    'sha256', // backend spelling, not Vault's
    'SHA2-256', // Vault matches exactly
    'sha2-256 ',
    '',
    '__proto__',
    'constructor',
    'toString',
  ])('rejects %j with invalid_request', (name) => {
    let err: unknown;
    try {
      vaultHash(name);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TransitError);
    expect(isTransitError(err, 'invalid_request')).toBe(true);
    expect((err as TransitError).message).toBe(`invalid hash algorithm ${JSON.stringify(name)}`);
    expect(isVaultHashName(name)).toBe(false);
  });

  it("the fixture's unsupported-algorithm error case is rejected by the registry", () => {
    const algs = fx.error_cases
      .map((c) => c.request_data.algorithm)
      .filter((a): a is string => typeof a === 'string');
    // 'sha2-256' appears in the bad-base64 case: a valid name, failing elsewhere.
    expect(algs.filter((a) => !isVaultHashName(a))).toEqual(['foobar']);
    expect(() => vaultHash('foobar')).toThrow('invalid hash algorithm "foobar"');
  });
});

describe.each(BACKENDS)('hash-vectors.json on %s', (_name, backend) => {
  it('input decodes to the documented text', () => {
    expect(new TextDecoder().decode(input)).toBe(fx.input_utf8);
  });

  it.each(fx.vectors.map((v) => [`${v.algorithm} ${v.format}`, v] as const))('%s', (_label, v) => {
    const sum = backend.digest(vaultHash(v.algorithm).name, input);
    const encoded = v.format === 'hex' ? hex.encode(sum) : base64.encode(sum);
    expect(encoded).toBe(v.expected_sum);
  });

  it('covers every SHA-2 and SHA-3 name', () => {
    const covered = new Set(fx.vectors.map((v) => v.algorithm));
    expect(VAULT_HASH_NAMES.filter((n) => !covered.has(n))).toEqual(['sha1']);
  });
});
