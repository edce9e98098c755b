/**
 * The per-call checks that were made cheaper (issue 18) give the same answers
 * as before, including the same error texts:
 *
 * - `parseVersioned` reads `<prefix>:v<N>:` without slices or a regular
 *   expression: a property test holds it equal to the former implementation,
 *   kept here as the oracle (its version read as Go's `strconv.Atoi`, as
 *   Vault's: sign, leading zeros, int64);
 * - `versionedHead` / `formatVersioned` remember the last head: interleaved
 *   prefixes and versions each get their own;
 * - `checkKeyName` remembers the last valid name: what follows it is checked
 *   in full;
 * - `keyType` looks the stored (lower-case) name up first, still accepts any
 *   case, and remembers the last name resolved; `vaultHash` looks names up in
 *   a Map: inherited property names are still unknown.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVaultHashName, vaultHash } from '../../src/crypto/hash.js';
import { TransitError } from '../../src/errors.js';
import { formatVersioned, parseVersioned, versionedHead } from '../../src/keys/ciphertext.js';
import { keyType } from '../../src/keys/key-types.js';
import { checkKeyName, WRAPPING_KEY_NAME } from '../../src/keys/names.js';

/** The implementation before issue 18's change (regex and slices), as the oracle. */
function formerParse(value: unknown, prefix: string, what: string) {
  const fail = (m: string) => new TransitError('invalid_request', m);
  if (typeof value !== 'string' || value === '') throw fail(`missing ${what}`);
  const head = `${prefix}:v`;
  if (!value.startsWith(head)) throw fail(`invalid ${what}: no prefix`);
  const rest = value.slice(head.length);
  const sep = rest.indexOf(':');
  if (sep < 0) throw fail(`invalid ${what}: wrong number of fields`);
  const digits = rest.slice(0, sep);
  // Go's strconv.Atoi: sign, ASCII digits, int64 (Vault reads the version with it).
  const big = /^[+-]?[0-9]+$/.test(digits) ? BigInt(digits) : undefined;
  if (big === undefined || big > 2n ** 63n - 1n || big < -(2n ** 63n)) {
    throw fail(`invalid ${what}: version number could not be decoded`);
  }
  return { version: Number(big), body: rest.slice(sep + 1) };
}

const outcome = (f: () => unknown) => {
  try {
    return { ok: f() };
  } catch (e) {
    return { error: (e as TransitError).code, message: (e as Error).message };
  }
};

describe('parseVersioned', () => {
  const cases = [
    'vault:v1:abc',
    'vault:v0:',
    'vault:v007:x:y',
    'vault:v:abc',
    'vault:v1',
    'vault:v',
    'vault:',
    'vault',
    '',
    'vault:V1:abc',
    'vault;v1:abc',
    'vaultv1:abc',
    'vault:vx:abc',
    'vault:v-1:abc',
    'vault:v1.5:abc',
    'vault:v 1:abc',
    'vault:v١:abc', // an Arabic-Indic digit
    `vault:v${'9'.repeat(15)}:a`,
    `vault:v${'9'.repeat(16)}:a`,
    'vault:v+1:abc',
    'vault:v-0:abc',
    'vault:v--1:abc',
    'vault:v-:abc',
    `vault:v${'0'.repeat(40)}7:a`,
    'vault:v9223372036854775807:a',
    'vault:v9223372036854775808:a',
    'vault:v-9223372036854775808:a',
    'vault:v-9223372036854775809:a',
    'tk:v3:abc',
    'vault:v1:vault:v2:abc',
  ];

  it('answers as the former implementation on fixed cases and two prefixes', () => {
    for (const prefix of ['vault', 'tk', '']) {
      for (const value of [...cases, 42, null, undefined, {}]) {
        expect(
          outcome(() => parseVersioned(value, prefix, 'ciphertext')),
          String(value),
        ).toEqual(outcome(() => formerParse(value, prefix, 'ciphertext')));
      }
    }
  });

  it('answers as the former implementation on any string (property)', () => {
    const piece = fc.constantFrom('vault', ':', 'v', '1', '0', '9', 'x', '-', '+', '', '١', 'V');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(piece, { maxLength: 12 }).map((a) => a.join('')),
        ),
        fc.constantFrom('vault', 'tk'),
        (value, prefix) => {
          expect(outcome(() => parseVersioned(value, prefix, 'HMAC'))).toEqual(
            outcome(() => formerParse(value, prefix, 'HMAC')),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('versionedHead and formatVersioned', () => {
  it('give each prefix and version its own head, in any order', () => {
    const calls: [string, number][] = [
      ['vault', 1],
      ['vault', 1],
      ['vault', 2],
      ['tk', 2],
      ['vault', 2],
      ['vault', 12],
      ['vault', 1],
    ];
    for (const [prefix, version] of calls) {
      expect(versionedHead(prefix, version)).toBe(`${prefix}:v${version}:`);
      expect(formatVersioned(prefix, version, 'AAAA')).toBe(`${prefix}:v${version}:AAAA`);
      expect(formatVersioned(prefix, version, new Uint8Array([0, 0, 0]))).toBe(
        `${prefix}:v${version}:AAAA`,
      );
    }
  });
});

describe('checkKeyName', () => {
  const refused = (name: unknown) => {
    try {
      checkKeyName(name);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  };

  it('checks every name in full after a valid one', () => {
    for (const good of ['orders', 'a', 'a.b-c_d', 'orders']) {
      expect(checkKeyName(good)).toBe(good);
      expect(refused('')).toBe('missing key name');
      expect(refused(undefined)).toBe('missing key name');
      expect(refused(`${good}/x`)).toMatch(/^invalid key name/);
      expect(refused(WRAPPING_KEY_NAME)).toMatch(/^invalid key name/);
      expect(refused(`${good}-`)).toMatch(/^invalid key name/);
      expect(refused('x'.repeat(129))).toBe('key name is longer than 128 characters');
      // A name with the same text as the last valid one, built anew, is valid too.
      expect(checkKeyName(good.split('').join(''))).toBe(good);
    }
  });
});

describe('keyType and vaultHash lookups', () => {
  it('keyType accepts the stored name and any case, and refuses the rest', () => {
    expect(keyType('aes256-gcm96').name).toBe('aes256-gcm96');
    expect(keyType('AES256-GCM96').name).toBe('aes256-gcm96');
    expect(keyType('ChaCha20-Poly1305').name).toBe('chacha20-poly1305');
    for (const bad of ['aes', 'constructor', '__proto__', 'toString', '']) {
      expect(() => keyType(bad)).toThrow(`unknown key type ${bad}`);
    }
  });

  it('keyType remembers the last name it resolved, and only that name', () => {
    // Interleaved names each get their own row; a refusal right after a hit
    // is still a refusal, and a repeat after a refusal still resolves.
    const names = ['ed25519', 'ed25519', 'hmac', 'RSA-2048', 'rsa-2048', 'ed25519'] as const;
    for (const n of names) expect(keyType(n).name).toBe(n.toLowerCase());
    expect(() => keyType('ed25519x')).toThrow('unknown key type ed25519x');
    expect(keyType('ed25519').name).toBe('ed25519');
    for (const bad of [undefined, null, 5, {}]) {
      expect(() => keyType(bad)).toThrow('key type must be a string');
    }
    expect(keyType('ed25519').name).toBe('ed25519');
  });

  it('vaultHash and isVaultHashName know only the table, exactly', () => {
    expect(vaultHash('sha2-256').name).toBe('sha256');
    expect(isVaultHashName('sha3-512')).toBe(true);
    for (const bad of ['SHA2-256', 'constructor', '__proto__', 'hasOwnProperty', 'none', '']) {
      expect(isVaultHashName(bad)).toBe(false);
      expect(() => vaultHash(bad)).toThrow(`invalid hash algorithm ${JSON.stringify(bad)}`);
    }
    expect(() => vaultHash(5 as never)).toThrow('invalid hash algorithm "5"');
  });
});
