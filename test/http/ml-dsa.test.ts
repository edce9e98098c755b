/**
 * ML-DSA keys (#16) over the real server, with Vault's request and response
 * shapes: create, read (SPKI PEM `public_key`), sign and verify (single and
 * batch), export (`signing-key` PKCS#8 seed form, `public-key` SPKI), the
 * refusals as 400s, backup and restore.
 */
import { ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSpki, pemDecode } from '../../src/crypto/pki/keys.js';
import { b64, type CliServer, call, startDev } from './helpers.js';

let server: CliServer;
beforeAll(async () => {
  server = await startDev();
});
afterAll(async () => {
  await server?.stop();
});

const post = (path: string, body: unknown) => call(server, 'POST', path, { body });
const INPUT = b64('signed over HTTP');

describe('ML-DSA over HTTP', () => {
  it('creates, reads, signs, verifies and exports', async () => {
    expect(
      (await post('/v1/transit/keys/h-mldsa', { type: 'mldsa-87', exportable: true })).status,
    ).toBeLessThan(300);
    const read = await call(server, 'GET', '/v1/transit/keys/h-mldsa');
    expect(read.status).toBe(200);
    expect(read.json.data.type).toBe('mldsa-87');
    expect(read.json.data.supports_signing).toBe(true);
    const pem = read.json.data.keys['1'].public_key as string;
    const spki = decodeSpki(pemDecode(pem, ['PUBLIC KEY'] as const).der);
    expect(spki.type).toBe('ml-dsa');

    const signed = await post('/v1/transit/sign/h-mldsa', { input: INPUT });
    expect(signed.status).toBe(200);
    const signature = signed.json.data.signature as string;
    expect(signature).toMatch(/^vault:v1:/);
    expect(signed.json.data.key_version).toBe(1);
    const raw = Buffer.from(signature.slice('vault:v1:'.length), 'base64');
    const pub = spki.type === 'ml-dsa' ? spki.key.key : new Uint8Array();
    expect(ml_dsa87.verify(raw, Buffer.from(INPUT, 'base64'), pub)).toBe(true);

    const ok = await post('/v1/transit/verify/h-mldsa', { input: INPUT, signature });
    expect(ok.json.data.valid).toBe(true);
    const bad = await post('/v1/transit/verify/h-mldsa', { input: b64('x'), signature });
    expect(bad.json.data.valid).toBe(false);

    const batch = await post('/v1/transit/sign/h-mldsa', {
      batch_input: [{ input: INPUT }, { input: b64('two') }],
    });
    expect(batch.status).toBe(200);
    expect(batch.json.data.batch_results).toHaveLength(2);
    const vb = await post('/v1/transit/verify/h-mldsa', {
      batch_input: batch.json.data.batch_results.map((r: { signature: string }, i: number) => ({
        input: i === 0 ? INPUT : b64('two'),
        signature: r.signature,
      })),
    });
    expect(vb.json.data.batch_results.map((r: { valid: boolean }) => r.valid)).toEqual([
      true,
      true,
    ]);

    const key = await call(server, 'GET', '/v1/transit/export/signing-key/h-mldsa/1');
    expect(key.status).toBe(200);
    expect(key.json.data.keys['1']).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const pubExport = await call(server, 'GET', '/v1/transit/export/public-key/h-mldsa/1');
    expect(pubExport.json.data.keys['1']).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it("takes Vault Enterprise's ml-dsa + parameter_set, signature_context and deterministic", async () => {
    const created = await post('/v1/transit/keys/h-ent', { type: 'ml-dsa', parameter_set: '44' });
    expect(created.status).toBeLessThan(300);
    expect((await call(server, 'GET', '/v1/transit/keys/h-ent')).json.data.type).toBe('mldsa-44');
    const signature_context = b64('protocol-v1');
    const a = await post('/v1/transit/sign/h-ent', {
      input: INPUT,
      signature_context,
      deterministic: true,
    });
    const b = await post('/v1/transit/sign/h-ent', {
      input: INPUT,
      signature_context,
      deterministic: true,
    });
    expect(a.status).toBe(200);
    expect(a.json.data.signature).toBe(b.json.data.signature);
    const signature = a.json.data.signature;
    const ok = await post('/v1/transit/verify/h-ent', {
      input: INPUT,
      signature,
      signature_context,
    });
    expect(ok.json.data.valid).toBe(true);
    const noCtx = await post('/v1/transit/verify/h-ent', { input: INPUT, signature });
    expect(noCtx.json.data.valid).toBe(false);
    const badSet = await post('/v1/transit/keys/h-ent-bad', {
      type: 'ml-dsa',
      parameter_set: '128',
    });
    expect(badSet.status).toBe(400);
    expect(badSet.json.errors[0]).toMatch(/unknown parameter set/);
    const hmac = await post('/v1/transit/hmac/h-ent', { input: INPUT });
    expect(hmac.status).toBe(400);
  });

  it('answers 400 for what ML-DSA keys do not do', async () => {
    await post('/v1/transit/keys/h-mldsa-2', { type: 'mldsa-44' });
    const derived = await post('/v1/transit/keys/h-mldsa-d', { type: 'mldsa-44', derived: true });
    expect(derived.status).toBe(400);
    const enc = await post('/v1/transit/encrypt/h-mldsa-2', { plaintext: INPUT });
    expect(enc.status).toBe(400);
    const mu = await post('/v1/transit/sign/h-mldsa-2', { input: INPUT, prehashed: true });
    expect(mu.status).toBe(400);
    expect(mu.json.errors[0]).toMatch(/64 bytes/);
  });

  it('backs up and restores', async () => {
    await post('/v1/transit/keys/h-mldsa-b', {
      type: 'mldsa-65',
      exportable: true,
      allow_plaintext_backup: true,
    });
    const { signature } = (await post('/v1/transit/sign/h-mldsa-b', { input: INPUT })).json.data;
    const backup = await call(server, 'GET', '/v1/transit/backup/h-mldsa-b');
    expect(backup.status).toBe(200);
    const restored = await post('/v1/transit/restore/h-mldsa-b2', {
      backup: backup.json.data.backup,
    });
    expect(restored.status).toBeLessThan(300);
    const ok = await post('/v1/transit/verify/h-mldsa-b2', { input: INPUT, signature });
    expect(ok.json.data.valid).toBe(true);
  });
});
