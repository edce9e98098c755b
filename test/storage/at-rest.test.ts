/**
 * Nothing secret reaches the disk: a node on the file adapter writes keys
 * (exportable AES, HMAC, Ed25519 and ML-DSA), tokens (root and child), a lease with a
 * secret in its data and a policy; then every file name and every byte in
 * the directory is searched for the exported key material (raw, base64,
 * hex), the token ids, the lease secret, the plaintext, the root key and the
 * unseal share. None is found. The same search over an unencrypted store
 * finds the key bytes, so the search itself works.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { Transit } from '../../src/transit/transit.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'transitkit-at-rest-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every file under `dir`: its name and content. */
function dump(dir: string): { names: string; bytes: Buffer } {
  const names: string[] = [];
  const chunks: Buffer[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const p = join(d, entry);
      names.push(entry);
      if (statSync(p).isDirectory()) walk(p);
      else chunks.push(readFileSync(p));
    }
  };
  walk(dir);
  return { names: names.join('\n'), bytes: Buffer.concat(chunks) };
}

/** The forms a secret could be stored in. */
function forms(secret: Buffer): Buffer[] {
  return [
    secret,
    Buffer.from(secret.toString('base64')),
    Buffer.from(secret.toString('base64url')),
    Buffer.from(secret.toString('hex')),
  ];
}

function findings(dir: string, secrets: Record<string, Buffer>): string[] {
  const { names, bytes } = dump(dir);
  const found: string[] = [];
  for (const [label, secret] of Object.entries(secrets)) {
    for (const f of forms(secret)) {
      if (bytes.includes(f) || names.includes(f.toString('latin1'))) found.push(label);
    }
  }
  return [...new Set(found)];
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('values at rest', () => {
  it('no key material, token id, lease secret or plaintext in the file store', async () => {
    const dir = tempDir();
    const rootKey = new Uint8Array(32).map(() => Math.floor(Math.random() * 256));
    const storage = await FileStorage.open(dir);
    const node = new TransitNode({ storage, rootKey, leases: { tickMs: false } });
    const { root_token } = await node.start();
    const t = node.transit;
    await t.createKey('aes', { exportable: true });
    await t.rotateKey('aes');
    await t.createKey('mac', { type: 'hmac', key_size: 64, exportable: true });
    await t.createKey('ed', { type: 'ed25519', exportable: true });
    await t.createKey('pq', { type: 'mldsa-65', exportable: true });
    const secrets: Record<string, Buffer> = {
      rootKey: Buffer.from(rootKey),
      rootToken: Buffer.from(root_token as string),
      plaintext: Buffer.from('attack at dawn, the 42nd of Neverember'),
      leaseSecret: Buffer.from('s3cr3t-db-password-0f9a8b7c'),
    };
    for (const [name, type] of [
      ['aes', 'encryption-key'],
      ['mac', 'hmac-key'],
      ['ed', 'signing-key'],
    ] as const) {
      const { keys } = await t.exportKey(type, name);
      for (const [v, k] of Object.entries(keys)) {
        secrets[`${name} v${v}`] = Buffer.from(k as string, 'base64');
      }
    }
    // The ML-DSA private key is its 32-byte seed (the `raw` export).
    const pq = await t.exportKey('signing-key', 'pq', 1, { format: 'raw' });
    secrets['pq v1'] = Buffer.from(pq.keys['1'] as string, 'base64');
    await t.encrypt('aes', { plaintext: b64(secrets.plaintext?.toString() as string) });
    const root = await node.tokens.authenticate(root_token as string);
    if (!root) throw new Error('the root token does not authenticate');
    const child = await node.tokens.create(root, { policies: ['app'], ttl: '1h' });
    secrets.childToken = Buffer.from(child.client_token);
    await node.policies.write('app', 'path "transit/encrypt/*" { capabilities = ["update"] }');
    const lease = await node.leases.issue({
      path: 'database/creds/readonly',
      ttl: '1h',
      renewable: true,
      data: { username: 'v-ro-1', password: secrets.leaseSecret?.toString() },
    });
    expect(lease.lease_id).toMatch(/^database\/creds\/readonly\//);
    await node.close();
    await storage.close();

    const { bytes } = dump(dir);
    expect(bytes.length).toBeGreaterThan(2000);
    expect(Object.keys(secrets).length).toBeGreaterThanOrEqual(9);
    expect(findings(dir, secrets)).toEqual([]);

    // And it all reads back through a new node.
    const again = await FileStorage.open(dir);
    const node2 = new TransitNode({ storage: again, rootKey, leases: { tickMs: false } });
    await node2.start();
    expect((await node2.leases.lookup(lease.lease_id)).id).toBe(lease.lease_id);
    expect(await node2.tokens.authenticate(child.client_token)).toBeDefined();
    await node2.close();
    await again.close();
  });

  it('the search finds key bytes in an unencrypted store (the check works)', async () => {
    const dir = tempDir();
    const storage = await FileStorage.open(dir);
    const transit = new Transit({ storage, autoRotate: false });
    await transit.createKey('aes', { exportable: true });
    const { keys } = await transit.exportKey('encryption-key', 'aes');
    await transit.close();
    await storage.close();
    expect(findings(dir, { key: Buffer.from(keys['1'] as string, 'base64') })).toEqual(['key']);
  });
});
