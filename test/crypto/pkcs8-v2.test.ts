/**
 * A PKCS#8 v2 (RFC 5958 OneAsymmetricKey) Ed25519 key
 * that carries its public key in `[1]` and no attributes — the form
 * BouncyCastle writes — imports in Vault (Go's `x509.ParsePKCS8PrivateKey`:
 * encoding/asn1 ignores trailing SEQUENCE elements, "We allow extra bytes at
 * the end of the SEQUENCE"), as does the form Rust's ring generates
 * (`[1] { BIT STRING }`); both were refused with "unexpected ASN.1
 * structure" (pkijs' schema knows only `[0]`), although the same key WITH an `[0]` attributes field before
 * `[1]` (RFC 8410 §10.3's example) is accepted. `decodePkcs8PrivateKey`
 * explicitly admits version 1, so the v2 shape is meant to be read.
 */
import { describe, expect, it } from 'vitest';
import { decodePkcs8PrivateKey } from '../../src/crypto/pki/pkcs8.js';
import { mobilityPair, wrapForImport } from '../transit/import-support.js';

// RFC 8410 §10.3: v2, attributes [0] and publicKey [1].
const RFC8410 = Buffer.from(
  'MHICAQEwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC' +
    'oB8wHQYKKoZIhvcNAQkJFDEPDA1DdXJkbGUgQ2hhaXJzgSEAGb9ECWmEzf6FQbrB' +
    'Z9w7lshQhqowtrbLDFw4rXAxZuE=',
  'base64',
);
const PUBLIC = '19bf44096984cdfe8541bac167dc3b96c85086aa30b6b6cb0c5c38ad703166e1';
// The same key without the attributes: SEQUENCE { 1, alg, OCTET STRING, [1] pub }.
const V2_NO_ATTRIBUTES = Buffer.concat([
  Buffer.from([0x30, 0x51]),
  RFC8410.subarray(2, 48),
  RFC8410.subarray(81),
]);
// ring's `Ed25519KeyPair::generate_pkcs8` form: publicKey as [1] { BIT STRING }.
const RING_V2 = Buffer.concat([
  Buffer.from('3053020101300506032b657004220420', 'hex'),
  RFC8410.subarray(16, 48),
  Buffer.from('a123032100', 'hex'),
  Buffer.from(PUBLIC, 'hex'),
]);

describe('PKCS#8 v2 Ed25519 (publicKey [1], no attributes)', () => {
  it('control: the RFC 8410 example (attributes and publicKey) parses', () => {
    const m = decodePkcs8PrivateKey(RFC8410);
    expect(m.type).toBe('ed25519');
  });

  it('the same key without attributes parses too (as Go does)', () => {
    expect(V2_NO_ATTRIBUTES.toString('hex')).toMatch(/^3051020101300506032b6570042204/);
    const m = decodePkcs8PrivateKey(V2_NO_ATTRIBUTES);
    expect(m.type).toBe('ed25519');
  });

  it("ring's v2 form parses too (as Go does)", () => {
    expect(decodePkcs8PrivateKey(RING_V2).type).toBe('ed25519');
  });

  it('imports through BYOK on both backends and has the RFC public key', async () => {
    const pair = await mobilityPair();
    let i = 0;
    for (const [name, t] of pair.engines) {
      const key = `v2-${name}-${i++}`;
      await t.importKey(key, {
        type: 'ed25519',
        ciphertext: wrapForImport(pair.wrap, V2_NO_ATTRIBUTES),
      });
      const { keys } = await t.exportKey('public-key', key, 1);
      expect(Buffer.from(keys['1'] as string, 'base64').toString('hex')).toBe(PUBLIC);
    }
  });
});
