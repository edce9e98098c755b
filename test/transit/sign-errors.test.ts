/**
 * Bad input to sign and verify: every refusal is an `invalid_request` with a
 * clear (Vault's, where Vault has one) message, on both backends — unknown
 * options, `hash_algorithm=none` without its requirements, malformed
 * signatures (DER that does not parse or carries extra data, JWS with padding
 * or the wrong width, bad base64), keys that cannot sign, missing and
 * soft-deleted keys. Batches keep going past a bad item.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64, enginePair, type Pair, signatureBytes } from './asym-support.js';
import { expectError } from './support.js';

const INPUT = b64('the quick brown fox');
const DIGEST = createHash('sha256').update('the quick brown fox').digest('base64');
const NONE_RULE =
  'hash_algorithm=none requires both prehashed=true and signature_algorithm=pkcs1v15';

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  await pair.node.createKey('ec', { type: 'ecdsa-p256' });
  await pair.node.createKey('ed', { type: 'ed25519' });
  await pair.node.createKey('rsa', { type: 'rsa-2048' });
  await pair.node.createKey('aes');
  await pair.node.createKey('mac', { type: 'hmac', key_size: 32 });
});

const reb64 = (bytes: Uint8Array): string => `vault:v1:${Buffer.from(bytes).toString('base64')}`;

describe.each(['node', 'noble'] as const)('%s backend', (backend) => {
  const t = () => (backend === 'node' ? pair.node : pair.noble);

  it("the backend's argument errors are the caller's: invalid_request, for sign and verify", async () => {
    const short = b64('hello');
    await expectError(
      t().sign('rsa', { input: short, prehashed: true }),
      'invalid_request',
      'invalid signing input: "digest" expected 32 bytes for sha256, got length=5',
    );
    await expectError(
      t().verify('rsa', { input: short, prehashed: true, signature: 'vault:v1:AAAA' }),
      'invalid_request',
      'invalid signing input: "digest" expected 32 bytes for sha256, got length=5',
    );
    await expectError(
      t().sign('rsa', {
        input: Buffer.alloc(300).toString('base64'),
        prehashed: true,
        hash_algorithm: 'none',
        signature_algorithm: 'pkcs1v15',
      }),
      'invalid_request',
      'invalid signing input: PKCS#1 v1.5 input too long: at most 245 bytes, got length=300',
    );
  });

  it('unknown hash, marshaling and signature algorithms', async () => {
    await expectError(
      t().sign('ec', { input: INPUT, hash_algorithm: 'md5' }),
      'invalid_request',
      'invalid hash algorithm "md5"',
    );
    await expectError(
      t().verify('ec', { input: INPUT, signature: 'vault:v1:AA==', hash_algorithm: 'sha2-257' }),
      'invalid_request',
      'invalid hash algorithm "sha2-257"',
    );
    await expectError(
      t().sign('ec', { input: INPUT, marshaling_algorithm: 'pem' }),
      'invalid_request',
      'invalid marshaling type "pem"',
    );
    await expectError(
      t().sign('rsa', { input: INPUT, signature_algorithm: 'pkcs1' }),
      'invalid_request',
      'unsupported rsa signature algorithm pkcs1',
    );
    await expectError(
      t().sign('ec', { input: INPUT, prehashed: 'maybe' as unknown as boolean }),
      'invalid_request',
      "'prehashed' must be a boolean",
    );
  });

  it('hash_algorithm=none needs prehashed and pkcs1v15, checked for every signing type', async () => {
    for (const name of ['ec', 'ed', 'rsa']) {
      for (const extra of [
        {},
        { prehashed: true },
        { signature_algorithm: 'pkcs1v15' },
        { prehashed: true, signature_algorithm: 'pss' },
      ]) {
        await expectError(
          t().sign(name, { input: DIGEST, hash_algorithm: 'none', ...extra }),
          'invalid_request',
          NONE_RULE,
        );
        await expectError(
          t().verify(name, {
            input: DIGEST,
            signature: 'vault:v1:AA==',
            hash_algorithm: 'none',
            ...extra,
          }),
          'invalid_request',
          NONE_RULE,
        );
      }
    }
  });

  it('hash none with its requirements: RSA pads without DigestInfo, ECDSA signs the raw digest', async () => {
    const req = {
      input: DIGEST,
      hash_algorithm: 'none',
      prehashed: true,
      signature_algorithm: 'pkcs1v15',
    };
    const rsa = await t().sign('rsa', req);
    expect((await pair.noble.verify('rsa', { ...req, signature: rsa.signature })).valid).toBe(true);
    // Not a DigestInfo signature: the sha2-256 PKCS#1 verification refuses it.
    const asSha256 = { ...req, hash_algorithm: 'sha2-256' };
    expect((await pair.node.verify('rsa', { ...asSha256, signature: rsa.signature })).valid).toBe(
      false,
    );
    const ec = await t().sign('ec', req);
    // A raw 32-byte digest is what sha2-256 prehashed signs: both agree.
    const v = await pair.node.verify('ec', { input: INPUT, signature: ec.signature });
    expect(v.valid).toBe(true);
    expect((await pair.noble.verify('ec', { ...req, signature: ec.signature })).valid).toBe(true);
  });

  it('keys that cannot sign, missing and soft-deleted keys', async () => {
    await expectError(
      t().sign('aes', { input: INPUT }),
      'invalid_request',
      'key type aes256-gcm96 does not support signing',
    );
    await expectError(
      t().verify('mac', { input: INPUT, signature: 'vault:v1:AAAA' }),
      'invalid_request',
      'key type hmac does not support verification',
    );
    await expectError(
      t().verify('aes', { input: INPUT, signature: 'vault:v1:AAAA' }),
      'invalid_request',
      'key type aes256-gcm96 does not support verification',
    );
    await expectError(
      t().sign('nope', { input: INPUT }),
      'invalid_request',
      'signing key not found',
    );
    await expectError(
      t().verify('nope', { input: INPUT, signature: 'vault:v1:AAAA' }),
      'invalid_request',
      'signature verification key not found',
    );
    // As Vault: a missing single input is the empty message; a batch item without one is refused.
    const empty = await t().sign('ec', {});
    expect(await t().verify('ec', { signature: empty.signature })).toEqual({ valid: true });
    expect(await t().verify('ec', { input: '', signature: empty.signature })).toEqual({
      valid: true,
    });
    expect(await t().verify('ec', { input: INPUT, signature: empty.signature })).toEqual({
      valid: false,
    });
    const batch = await t().sign('ec', { batch_input: [{}] });
    expect(batch.batch_results[0]?.error).toBe('missing input');
    await expectError(
      t().sign('ec', { input: 'not base64!' }),
      'invalid_request',
      /^unable to decode input as base64/,
    );
  });

  it('malformed signature values', async () => {
    const cases: Array<[string, string]> = [
      ['', 'missing signature'],
      ['vault:AAAA', 'invalid signature: no prefix'],
      ['vault:v1', 'invalid signature: wrong number of fields'],
      ['vault:vx:AAAA', 'invalid signature: version number could not be decoded'],
      ['vault:v1:***', 'invalid base64 signature value'],
      ['vault:v1:AAA', 'invalid base64 signature value'],
    ];
    for (const [signature, message] of cases) {
      const e = await expectError(t().verify('ec', { input: INPUT, signature }), 'invalid_request');
      // The empty string is "no signature given" (neither kind).
      if (signature === '') expect(e.message).toMatch(/neither a 'signature' nor an 'hmac'/);
      else expect(e.message).toBe(message);
    }
  });

  it('ASN.1 ECDSA: unparsable → invalid, trailing bytes → extra data (Vault texts)', async () => {
    const { signature } = await t().sign('ec', { input: INPUT });
    const der = signatureBytes(signature);
    await expectError(
      t().verify('ec', { input: INPUT, signature: reb64(new Uint8Array([1, 2, 3])) }),
      'invalid_request',
      'supplied signature is invalid',
    );
    await expectError(
      t().verify('ec', { input: INPUT, signature: reb64(der.subarray(0, der.length - 1)) }),
      'invalid_request',
      'supplied signature is invalid',
    );
    await expectError(
      t().verify('ec', { input: INPUT, signature: reb64(new Uint8Array([...der, 0])) }),
      'invalid_request',
      'supplied signature contains extra data',
    );
    // Well-formed but wrong: false, not an error.
    const wrong = der.slice();
    wrong[wrong.length - 1] = (wrong[wrong.length - 1] ?? 0) ^ 1;
    expect((await t().verify('ec', { input: INPUT, signature: reb64(wrong) })).valid).toBe(false);
  });

  it('JWS: padding and the standard alphabet are refused; any other width is read as Vault reads it', async () => {
    const { signature } = await t().sign('ec', { input: INPUT, marshaling_algorithm: 'jws' });
    const jws = { input: INPUT, marshaling_algorithm: 'jws' } as const;
    const body = signature.slice('vault:v1:'.length);
    const raw = Buffer.from(body, 'base64url');
    await expectError(
      t().verify('ec', { ...jws, signature: `vault:v1:${body}==` }),
      'invalid_request',
      'invalid base64 signature value',
    );
    await expectError(
      t().verify('ec', { ...jws, signature: `vault:v1:${raw.toString('base64')}` }),
      'invalid_request',
      'invalid base64 signature value',
    );
    // Vault splits the bytes in half, each a big-endian integer: another width
    // is a signature that does not verify (false), never an error.
    for (const bytes of [
      raw.subarray(0, 63),
      Buffer.concat([raw, Buffer.from([0])]),
      raw.subarray(0, 32),
      Buffer.alloc(0),
      Buffer.alloc(2),
      Buffer.alloc(200, 0xff),
    ]) {
      const r = await t().verify('ec', {
        ...jws,
        signature: `vault:v1:${bytes.toString('base64url')}`,
      });
      expect(r.valid, `${bytes.length} bytes`).toBe(false);
    }
    // r and s each padded by a zero byte (66 bytes): the same integers, so it verifies, as in Go.
    const padded = Buffer.concat([
      Buffer.from([0]),
      raw.subarray(0, 32),
      Buffer.from([0]),
      raw.subarray(32),
    ]);
    expect(
      (await t().verify('ec', { ...jws, signature: `vault:v1:${padded.toString('base64url')}` }))
        .valid,
    ).toBe(true);
    // An asn1 value (std base64) sent as jws: with padding, `+` or `/` it is not
    // URL-safe base64 (400). A 72-byte DER value has no padding, and 1 in 20
    // has neither `+` nor `/`: that one decodes, and is then only not valid.
    let asn1: string;
    do asn1 = (await t().sign('ec', { input: INPUT })).signature;
    while (!/[=+/]/.test(asn1.slice('vault:v1:'.length)));
    await expectError(t().verify('ec', { ...jws, signature: asn1 }), 'invalid_request');
  });

  it('RSA and Ed25519: a signature of the wrong length is simply invalid', async () => {
    for (const name of ['rsa', 'ed']) {
      for (const bytes of [new Uint8Array(0), new Uint8Array(3), new Uint8Array(600)]) {
        expect((await t().verify(name, { input: INPUT, signature: reb64(bytes) })).valid).toBe(
          false,
        );
      }
    }
  });

  it('verify: one kind of proof, and all batch items alike', async () => {
    await expectError(
      t().verify('ec', { input: INPUT, signature: 'vault:v1:AA==', hmac: 'vault:v1:AA==' }),
      'invalid_request',
      "provide one of 'signature' or 'hmac'",
    );
    await expectError(
      t().verify('ec', {
        batch_input: [
          { input: INPUT, signature: 'vault:v1:AA==' },
          { input: INPUT, hmac: 'vault:v1:AA==' },
        ],
      }),
      'invalid_request',
      "elements of batch_input must all provide 'signature' or all provide 'hmac'",
    );
    await expectError(
      t().verify('ec', { batch_input: [{ input: INPUT }] }),
      'invalid_request',
      "no batch_input elements have 'signature' or 'hmac'",
    );
    await expectError(
      t().verify('ec', {
        batch_input: [{ input: INPUT, signature: 'vault:v1:AA==' }, { input: INPUT }],
      }),
      'invalid_request',
      "some elements of batch_input are missing 'signature'",
    );
  });

  it('soft-deleted keys refuse sign and verify', async () => {
    await pair.node.createKey(`soft-${backend}`, { type: 'ed25519' });
    const { signature } = await t().sign(`soft-${backend}`, { input: INPUT });
    await pair.node.softDeleteKey(`soft-${backend}`);
    await expectError(
      t().sign(`soft-${backend}`, { input: INPUT }),
      'invalid_request',
      'refusing to use soft-deleted key',
    );
    await expectError(
      t().verify(`soft-${backend}`, { input: INPUT, signature }),
      'invalid_request',
      'refusing to use soft-deleted key',
    );
  });
});
