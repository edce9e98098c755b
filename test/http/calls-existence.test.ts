/**
 * Encrypt's existence check (`adapters/http/calls.ts` `keyExists`) decides
 * whether a token holding only `create` (or only `update`) on
 * `transit/encrypt/<name>` may encrypt: `create` only when the call makes a
 * new key, `update` only when the key exists (Vault's upsert rule). The
 * check must fail closed: a storage read that fails is an error (500), never
 * "the key is missing", or a create-only token would encrypt under a key
 * that exists, with the library's own read succeeding a moment later.
 */
import { describe, expect, it } from 'vitest';
import { createHandler, type HttpReply } from '../../adapters/http/index.js';
import { internal } from '../../src/errors.js';
import { AclPolicyStore, MemoryStorage, TokenStore, Transit } from '../../src/index.js';
import { StorageView } from '../helpers/storage-view.js';

/** A storage whose reads under an armed key fail (as the real adapters' `internal` errors do). */
class FailingReads extends StorageView {
  readonly failing = new Map<string, number>();
  failures = 0;
  override async get(key: string): Promise<Uint8Array | undefined> {
    const left = this.failing.get(key) ?? 0;
    if (left > 0) {
      this.failing.set(key, left - 1);
      this.failures++;
      throw internal(`storage read timed out: ${key}`);
    }
    return this.inner.get(key);
  }
}

const POLICY = `
path "transit/encrypt/*" { capabilities = ["create"] }
path "transit/encrypt/upd" { capabilities = ["update"] }
`;

/** Instance A makes the keys; instance B (its own caches) serves HTTP on the same storage. */
async function setUp() {
  const inner = new MemoryStorage();
  const a = new Transit({ storage: inner, autoRotate: false });
  await a.createKey('k');
  await a.createKey('upd');
  const storage = new FailingReads(inner);
  const tokens = new TokenStore({ storage });
  const policies = new AclPolicyStore({ storage });
  await policies.write('p', POLICY);
  const root = await tokens.authenticate(await tokens.createRoot());
  if (!root) throw new Error('no root token');
  const token = (await tokens.create(root, { policies: ['p'] })).client_token;
  const b = new Transit({ storage, autoRotate: false });
  const errors: unknown[][] = [];
  const handler = createHandler(
    { transit: b, tokens, policies },
    { logger: { error: (...args: unknown[]) => errors.push(args) } },
  );
  const encrypt = async (name: string): Promise<HttpReply> => {
    const reply = await handler.dispatch({
      method: 'POST',
      url: `/v1/transit/encrypt/${name}`,
      headers: (h) => (h === 'x-vault-token' ? token : undefined),
      body: async () => JSON.stringify({ plaintext: btoa('secret') }),
    });
    if (!reply) throw new Error('no reply');
    return reply;
  };
  return { storage, encrypt, a, b, errors };
}

const bodyOf = (r: HttpReply) => JSON.parse(String(r.body)) as Record<string, unknown>;

describe('the encrypt existence check fails closed', () => {
  it('a create-only token gets 403 on an existing key, 200 on a new one', async () => {
    const { encrypt, a } = await setUp();
    expect((await encrypt('k')).status).toBe(403);
    const made = await encrypt('fresh');
    expect(made.status).toBe(200);
    expect((await a.readKey('fresh')).latest_version).toBe(1);
  });

  it('a failed read of the key is a 500, not a key to create', async () => {
    const { storage, encrypt, errors } = await setUp();
    storage.failing.set('transit/policy/k', 1);
    const r = await encrypt('k');
    expect(storage.failures).toBe(1);
    expect(r.status).toBe(500);
    const body = bodyOf(r);
    expect(body.errors).toEqual(expect.any(Array));
    expect(JSON.stringify(body)).not.toContain('ciphertext');
    expect(errors.length).toBeGreaterThan(0);
    // Once storage answers again, Vault's answer: the key exists, the token may not update it.
    expect((await encrypt('k')).status).toBe(403);
  });

  it('a failed read is a 500 for an update-only token too (never taken for a missing key)', async () => {
    const { storage, encrypt } = await setUp();
    storage.failing.set('transit/policy/upd', 1);
    expect((await encrypt('upd')).status).toBe(500);
    expect((await encrypt('upd')).status).toBe(200);
  });

  it('a name the library refuses still counts as missing: the call answers its 400', async () => {
    const { encrypt } = await setUp();
    const r = await encrypt('bad-');
    expect(r.status).toBe(400);
    expect(String(bodyOf(r).errors)).toContain('invalid key name');
  });
});
