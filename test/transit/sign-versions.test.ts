/**
 * Sign and verify, continued: derived Ed25519 keys (per-context key pairs,
 * `public_key` / batch `publickey`, read with `context`), key versions and
 * the min version rules, HMAC on asymmetric keys, and a custom value prefix —
 * on both backends over one storage.
 */
import { createPublicKey } from 'node:crypto';
import type { SignResult } from 'transitkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64, enginePair, nodeVerifies, type Pair, signatureBytes } from './asym-support.js';
import { expectError } from './support.js';

const TEXT = 'the quick brown fox';
const INPUT = b64(TEXT);
const DATA = new TextEncoder().encode(TEXT);

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  for (const type of ['ed25519', 'ecdsa-p384', 'rsa-2048'])
    await pair.node.createKey(type, { type });
});

describe('derived ed25519', () => {
  const ctx = (s: string) => b64(s);

  it('same context → same key and signature; another context → another key', async () => {
    await pair.node.createKey('derived-ed', { type: 'ed25519', derived: true });
    const results: SignResult[] = [];
    for (const [, t] of pair.engines) {
      results.push(await t.sign('derived-ed', { input: INPUT, context: ctx('alice') }));
    }
    const [a, b] = results;
    expect(a?.signature).toBe(b?.signature);
    expect(a?.public_key).toBe(b?.public_key);
    expect(Buffer.from(a?.public_key as string, 'base64')).toHaveLength(32);
    const other = await pair.noble.sign('derived-ed', { input: INPUT, context: ctx('bob') });
    expect(other.public_key).not.toBe(a?.public_key);

    // node:crypto verifies with the returned public key (raw → SPKI).
    const spki = Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      Buffer.from(a?.public_key as string, 'base64'),
    ]);
    const pub = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(nodeVerifies('ed25519', pub, DATA, signatureBytes(a?.signature as string))).toBe(true);

    for (const [, t] of pair.engines) {
      const sig = a?.signature as string;
      expect(
        (await t.verify('derived-ed', { input: INPUT, signature: sig, context: ctx('alice') }))
          .valid,
      ).toBe(true);
      expect(
        (await t.verify('derived-ed', { input: INPUT, signature: sig, context: ctx('bob') })).valid,
      ).toBe(false);
      await expectError(
        t.sign('derived-ed', { input: INPUT }),
        'invalid_request',
        /^missing 'context' for key derivation/,
      );
      await expectError(
        t.verify('derived-ed', { input: INPUT, signature: sig }),
        'invalid_request',
        /^missing 'context' for key derivation/,
      );
    }

    // Read shows "" without context, the derived key with it.
    const plain = await pair.node.readKey('derived-ed');
    expect((plain.keys as Record<string, { public_key: string }>)['1']?.public_key).toBe('');
    const withCtx = await pair.noble.readKey('derived-ed', { context: ctx('alice') });
    expect((withCtx.keys as Record<string, { public_key: string }>)['1']?.public_key).toBe(
      a?.public_key,
    );
  });

  it('batch items carry `publickey`; a missing context fails only its item', async () => {
    await pair.node.createKey('derived-ed-batch', { type: 'ed25519', derived: true });
    const r = await pair.node.sign('derived-ed-batch', {
      batch_input: [
        { input: INPUT, context: ctx('one'), reference: '1' },
        { input: INPUT, reference: 'none' },
      ],
    });
    const [one, none] = r.batch_results;
    expect(one?.publickey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(one?.reference).toBe('1');
    expect(none?.error).toMatch(/^missing 'context'/);
    expect(none?.key_version).toBe(0);
    const single = await pair.noble.sign('derived-ed-batch', { input: INPUT, context: ctx('one') });
    expect(single.public_key).toBe(one?.publickey);
  });
});

describe('key versions', () => {
  it('key_version signs with an older version; min versions are honoured', async () => {
    const { node, noble } = pair;
    await node.createKey('versioned', { type: 'ecdsa-p256' });
    await node.rotateKey('versioned');
    await noble.rotateKey('versioned');
    const latest = await noble.sign('versioned', { input: INPUT });
    expect(latest.key_version).toBe(3);
    expect(latest.signature.startsWith('vault:v3:')).toBe(true);
    const v1 = await node.sign('versioned', { input: INPUT, key_version: 1 });
    expect(v1.key_version).toBe(1);
    expect((await noble.verify('versioned', { input: INPUT, signature: v1.signature })).valid).toBe(
      true,
    );
    // Signatures of one version do not verify under another.
    const moved = v1.signature.replace('vault:v1:', 'vault:v2:');
    expect((await node.verify('versioned', { input: INPUT, signature: moved })).valid).toBe(false);

    await expectError(
      node.sign('versioned', { input: INPUT, key_version: 4 }),
      'invalid_request',
      'requested version for signing is higher than the latest key version',
    );
    await expectError(
      node.sign('versioned', { input: INPUT, key_version: -1 }),
      'invalid_request',
      'requested version for signing is negative',
    );
    await node.updateKeyConfig('versioned', {
      min_encryption_version: 2,
      min_decryption_version: 2,
    });
    await expectError(
      noble.sign('versioned', { input: INPUT, key_version: 1 }),
      'invalid_request',
      'requested version for signing is less than the minimum encryption key version',
    );
    await expectError(
      noble.verify('versioned', { input: INPUT, signature: v1.signature }),
      'invalid_request',
      'ciphertext or signature version is disallowed by policy (too old)',
    );
    await expectError(
      noble.verify('versioned', { input: INPUT, signature: 'vault:v0:AAAA' }),
      'invalid_request',
      'ciphertext or signature version is disallowed by policy (too old)',
    );
    await expectError(
      node.verify('versioned', { input: INPUT, signature: 'vault:v4:AAAA' }),
      'invalid_request',
      'invalid signature: version is too new',
    );
    // In a batch, a version problem fails every item, not the call.
    const b = await node.sign('versioned', { key_version: 1, batch_input: [{ input: INPUT }] });
    expect(b.batch_results[0]?.error).toBe(
      'requested version for signing is less than the minimum encryption key version',
    );
  });

  it('HMAC keeps working on asymmetric keys (each version has its own hmac_key)', async () => {
    for (const name of ['ed25519', 'ecdsa-p384', 'rsa-2048']) {
      const { hmac } = await pair.node.hmac(name, { input: INPUT });
      expect((await pair.noble.verify(name, { input: INPUT, hmac })).valid).toBe(true);
    }
  });

  it('a custom prefix is used for signatures', async () => {
    const { Transit } = await import('transitkit');
    const t = new Transit({ storage: pair.storage, prefix: 'acme', autoRotate: false });
    const { signature } = await t.sign('ed25519', { input: INPUT });
    expect(signature.startsWith('acme:v1:')).toBe(true);
    expect((await t.verify('ed25519', { input: INPUT, signature })).valid).toBe(true);
    await expectError(
      pair.node.verify('ed25519', { input: INPUT, signature }),
      'invalid_request',
      'invalid signature: no prefix',
    );
  });
});
