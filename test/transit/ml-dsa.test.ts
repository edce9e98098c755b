/**
 * ML-DSA keys (#16) through the engine, on the node and the noble engine
 * over one storage: read body, sign/verify (single, batch, key_version, min
 * versions, jws, external mu, context strings) and the refusals (derived,
 * convergent, encrypt family, HMAC). Keys in motion (export, import,
 * byok-export, backup, CSR, chains) are in `ml-dsa-mobility.test.ts`; the
 * independent checks in `ml-dsa-python.test.ts` and
 * `../crypto/wycheproof-mldsa.test.ts`.
 */

import * as asn1js from 'asn1js';
import { describe, expect, it } from 'vitest';
import { decodeSpki, pemDecode } from '../../src/crypto/pki/keys.js';
import { wrapForImport } from './import-support.js';
import { LEVELS, MSG, mlDsaEngines, pkcs8With } from './ml-dsa-support.js';
import { expectError } from './support.js';

const SIG_BYTES = { 44: 2420, 65: 3309, 87: 4627 } as const;
const PK_BYTES = { 44: 1312, 65: 1952, 87: 2592 } as const;
const sigOf = (v: string): Buffer => Buffer.from(v.split(':')[2] ?? '', 'base64');

const { pair: enginePair, engine } = mlDsaEngines();

describe('ML-DSA keys in the engine', () => {
  for (const level of LEVELS) {
    const type = `mldsa-${level}` as const;

    it(`${type}: read body, signatures, versions and batch on both engines`, async () => {
      for (const [bname, t] of enginePair().engines) {
        const name = `k-${bname}-${type}`;
        const info = await t.createKey(name, { type, exportable: true });
        expect(info.type).toBe(type);
        expect(info.parameter_set).toBe(String(level));
        expect(info.supports_signing).toBe(true);
        expect(info.supports_encryption).toBe(false);
        expect(info.supports_derivation).toBe(false);
        const v1 = info.keys['1'] as { name: string; public_key: string };
        expect(v1.name).toBe(type);
        const spki = decodeSpki(pemDecode(v1.public_key, ['PUBLIC KEY'] as const).der);
        expect(spki.type).toBe('ml-dsa');
        expect(spki.type === 'ml-dsa' && spki.key.key.length).toBe(PK_BYTES[level]);

        const a = await t.sign(name, { input: MSG });
        const b = await t.sign(name, { input: MSG });
        expect(sigOf(a.signature).length).toBe(SIG_BYTES[level]);
        expect(a.signature).not.toBe(b.signature); // hedged by default
        expect((await t.verify(name, { input: MSG, signature: a.signature })).valid).toBe(true);
        const other = Buffer.from('other').toString('base64');
        expect((await t.verify(name, { input: other, signature: a.signature })).valid).toBe(false);

        const jws = await t.sign(name, { input: MSG, marshaling_algorithm: 'jws' });
        expect(jws.signature).not.toMatch(/[+/=]/);
        const ok = await t.verify(name, {
          input: MSG,
          signature: jws.signature,
          marshaling_algorithm: 'jws',
        });
        expect(ok.valid).toBe(true);

        await t.rotateKey(name);
        const v2 = await t.sign(name, { input: MSG });
        expect(v2.signature).toMatch(/^vault:v2:/);
        const old = await t.sign(name, { input: MSG, key_version: 1 });
        expect(old.signature).toMatch(/^vault:v1:/);
        expect((await t.verify(name, { input: MSG, signature: old.signature })).valid).toBe(true);
        await t.updateKeyConfig(name, { min_decryption_version: 2 });
        await expectError(
          t.verify(name, { input: MSG, signature: old.signature }),
          'invalid_request',
          /too old/,
        );

        const batch = await t.sign(name, {
          batch_input: [{ input: MSG }, { input: 'not base64!' }],
        });
        expect(batch.batch_results[0]?.signature).toMatch(/^vault:v2:/);
        expect(batch.batch_results[1]?.error).toBeTruthy();
        const vb = await t.verify(name, {
          batch_input: [
            { input: MSG, signature: batch.batch_results[0]?.signature },
            { input: other, signature: batch.batch_results[0]?.signature },
          ],
        });
        expect(vb.batch_results.map((r) => r.valid)).toEqual([true, false]);
      }
    });
  }

  it('prehashed=true signs a 64-byte external mu; other sizes are refused', async () => {
    const t = engine(0);
    await t.createKey('mu', { type: 'mldsa-65', exportable: true });
    const mu = Buffer.alloc(64, 7).toString('base64');
    const { signature } = await t.sign('mu', { input: mu, prehashed: true });
    expect((await t.verify('mu', { input: mu, signature, prehashed: true })).valid).toBe(true);
    // The same bytes as a message are a different statement.
    expect((await t.verify('mu', { input: mu, signature })).valid).toBe(false);
    await expectError(
      t.sign('mu', { input: Buffer.alloc(32).toString('base64'), prehashed: true }),
      'invalid_request',
      /64 bytes/,
    );
    await expectError(
      t.sign('mu', { input: MSG, hash_algorithm: 'none' }),
      'invalid_request',
      /hash_algorithm=none/,
    );
  });

  it("accepts Vault Enterprise's type: ml-dsa + parameter_set, stores the canonical type", async () => {
    const t = engine(0);
    for (const set of ['44', '65', '87'] as const) {
      const info = await t.createKey(`ent-${set}`, { type: 'ml-dsa', parameter_set: set });
      expect(info.type).toBe(`mldsa-${set}`);
    }
    const same = await t.createKey('ent-canonical', { type: 'mldsa-65', parameter_set: '65' });
    expect(same.type).toBe('mldsa-65');
    await expectError(
      t.createKey('ent-bad', { type: 'ml-dsa', parameter_set: '66' }),
      'invalid_request',
      'unknown parameter set "66" for key type ml-dsa; expected one of 44, 65, 87',
    );
    await expectError(
      t.createKey('ent-none', { type: 'ml-dsa' }),
      'invalid_request',
      'missing parameter_set for key type ml-dsa; expected one of 44, 65, 87',
    );
    await expectError(
      t.createKey('ent-mismatch', { type: 'mldsa-44', parameter_set: '87' }),
      'invalid_request',
      /not valid for key type mldsa-44/,
    );
    await expectError(
      t.createKey('ent-ec', { type: 'ecdsa-p256', parameter_set: '65' }),
      'invalid_request',
      /not valid for key type ecdsa-p256/,
    );
    const seed = new Uint8Array(32).fill(5);
    const inner = new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 }, valueHex: seed });
    await t.importKey('ent-import', {
      type: 'ml-dsa',
      parameter_set: '65',
      ciphertext: wrapForImport(enginePair().wrap, pkcs8With(inner)),
    });
    expect((await t.readKey('ent-import')).type).toBe('mldsa-65');
  });

  it('signature_context (FIPS 204) and deterministic; refused for other key types', async () => {
    const t = engine(1);
    await t.createKey('ctx', { type: 'mldsa-44' });
    const signature_context = Buffer.from('app-v1').toString('base64');
    const a = await t.sign('ctx', { input: MSG, signature_context, deterministic: true });
    const b = await t.sign('ctx', { input: MSG, signature_context, deterministic: true });
    expect(a.signature).toBe(b.signature);
    const c = await t.sign('ctx', { input: MSG, deterministic: true });
    expect(c.signature).not.toBe(a.signature);
    const ok = await t.verify('ctx', { input: MSG, signature: a.signature, signature_context });
    expect(ok.valid).toBe(true);
    expect((await t.verify('ctx', { input: MSG, signature: a.signature })).valid).toBe(false);
    await expectError(
      t.sign('ctx', { input: MSG, signature_context: Buffer.alloc(256).toString('base64') }),
      'invalid_request',
      'signature_context must be at most 255 bytes',
    );
    await expectError(
      t.sign('ctx', {
        input: Buffer.alloc(64).toString('base64'),
        prehashed: true,
        signature_context,
      }),
      'invalid_request',
      /context string cannot be used with an external mu/,
    );
    await t.createKey('ctx-ed', { type: 'ed25519' });
    await expectError(
      t.sign('ctx-ed', { input: MSG, signature_context }),
      'invalid_request',
      'signature_context and deterministic are not supported for keys of type ed25519',
    );
    await expectError(
      t.sign('ctx-ed', { input: MSG, deterministic: true }),
      'invalid_request',
      /not supported for keys of type ed25519/,
    );
  });

  it('refuses HMAC with an ML-DSA key', async () => {
    const t = engine(0);
    await t.createKey('no-hmac', { type: 'mldsa-65' });
    await expectError(
      t.hmac('no-hmac', { input: MSG }),
      'invalid_request',
      'HMAC is not supported for keys of type mldsa-65',
    );
    await expectError(
      t.verify('no-hmac', { input: MSG, hmac: 'vault:v1:AAAA' }),
      'invalid_request',
      'HMAC is not supported for keys of type mldsa-65',
    );
    await t.createKey('no-hmac-x', { type: 'mldsa-44', exportable: true });
    await expectError(
      t.exportKey('hmac-key', 'no-hmac-x'),
      'invalid_request',
      'HMAC is not supported for keys of type mldsa-44',
    );
  });

  it('refuses derivation, convergence and the encryption operations', async () => {
    const t = engine(0);
    await expectError(
      t.createKey('d', { type: 'mldsa-44', derived: true }),
      'invalid_request',
      /not supported for keys of type mldsa-44/,
    );
    await expectError(
      t.createKey('c', { type: 'mldsa-44', derived: true, convergent_encryption: true }),
      'invalid_request',
    );
    await t.createKey('enc', { type: 'mldsa-44' });
    await expectError(t.encrypt('enc', { plaintext: MSG }), 'invalid_request');
    await expectError(t.decrypt('enc', { ciphertext: 'vault:v1:AAAA' }), 'invalid_request');
    await expectError(t.generateDataKey('enc', 'plaintext'), 'invalid_request');
  });
});
