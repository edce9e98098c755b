/**
 * TransitNode, in-process: initialisation (Vault's parameter rules, once only,
 * even racing), unseal progress (threshold, duplicates, reset, nonce, wrong or
 * malformed shares), seal (every transit, token, lease and policy operation
 * fails with `sealed`, kept references included; new instances after the next
 * unseal), keyring rotation across two nodes, auto-unseal, and active/standby.
 */
import { describe, expect, it } from 'vitest';
import { AclPolicyStore } from '../../src/auth/acl-policies.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const newNode = (storage = new MemoryStorage(), extra = {}) =>
  new TransitNode({ storage, leases: { tickMs: false }, ...extra });

async function unsealed(shares = 3, threshold = 2) {
  const storage = new MemoryStorage();
  const node = newNode(storage);
  const init = await node.init({ secret_shares: shares, secret_threshold: threshold });
  for (const k of init.keys.slice(0, threshold)) await node.unseal({ key: k });
  return { storage, node, init };
}

describe('initialisation', () => {
  it('starts uninitialised: seal-status, init status, and every service refuses', async () => {
    const node = newNode();
    expect(await node.initStatus()).toEqual({ initialized: false });
    expect(await node.sealStatus()).toMatchObject({
      type: 'shamir',
      initialized: false,
      sealed: true,
      t: 0,
      n: 0,
      progress: 0,
      nonce: '',
    });
    expect(await node.health()).toEqual({ initialized: false, sealed: true, standby: false });
    expect(() => node.services()).toThrow('Vault is not initialized');
    await expect(node.unseal({ key: 'aa' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'Vault is not initialized',
    });
  });

  it.each([
    [0, 0, /secret_shares must be a positive integer/],
    [3, 0, /secret_threshold must be a positive integer/],
    [3, 4, /cannot be larger than secret_shares/],
    [3, 1, /at least 2 when secret_shares > 1/],
    [256, 2, /may not exceed 255/],
    [2.5, 2, /secret_shares must be a positive integer/],
  ])('refuses shares=%s threshold=%s', async (n, t, message) => {
    await expect(newNode().init({ secret_shares: n, secret_threshold: t })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(message),
    });
  });

  it('returns hex and base64 shares and a root token, stays sealed, and initialises once', async () => {
    const node = newNode();
    const init = await node.init({ secret_shares: 5, secret_threshold: 3 });
    expect(init.keys).toHaveLength(5);
    expect(init.keys_base64).toHaveLength(5);
    for (const [i, hex] of init.keys.entries()) {
      expect(hex).toMatch(/^[0-9a-f]{66}$/);
      expect(Buffer.from(init.keys_base64[i] as string, 'base64').toString('hex')).toBe(hex);
    }
    expect(new Set(init.keys).size).toBe(5);
    expect(init.root_token).toMatch(/^hvs\.[A-Za-z0-9]{32}$/);
    expect(await node.sealStatus()).toMatchObject({ initialized: true, sealed: true, t: 3, n: 5 });
    await expect(node.init({ secret_shares: 1, secret_threshold: 1 })).rejects.toThrow(
      'Vault is already initialized',
    );
  });

  it('two nodes racing to initialise one store: exactly one wins', async () => {
    const storage = new MemoryStorage();
    const results = await Promise.allSettled(
      [newNode(storage), newNode(storage), newNode(storage)].map((n) =>
        n.init({ secret_shares: 1, secret_threshold: 1 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason.message).toBe('Vault is already initialized');
    }
  });
});

describe('a failed initialisation', () => {
  it('auto-unseal: a bad initialRootToken is refused before anything is written; a good one then initialises', async () => {
    const storage = new MemoryStorage();
    const key = new Uint8Array(32).fill(7);
    const bad = newNode(storage, { rootKey: key, initialRootToken: 'bad token with spaces' });
    await expect(bad.start()).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'a root token id must be 1-512 printable ASCII characters',
    });
    expect(await bad.initStatus()).toEqual({ initialized: false });
    expect(await storage.list('')).toEqual([]);
    const good = newNode(storage, { rootKey: key, initialRootToken: 'hvs.good' });
    expect(await good.start()).toEqual({ root_token: 'hvs.good' });
    expect((await good.tokens.authenticate('hvs.good'))?.isRoot).toBe(true);
    await good.close();
  });

  it('shamir: a storage failure while writing the root token leaves the store uninitialised, and init can run again', async () => {
    /** Fails the next write outside core/ (the root token's entries). */
    class FailingOnce extends MemoryStorage {
      fail = 1;
      override async put(k: string, v: Uint8Array): Promise<void> {
        if (!k.startsWith('core/') && this.fail-- > 0)
          throw new Error('injected: storage write failed');
        return super.put(k, v);
      }
      override async compareAndSet(
        k: string,
        e: Uint8Array | undefined,
        n: Uint8Array | undefined,
      ): Promise<boolean> {
        if (!k.startsWith('core/') && this.fail-- > 0)
          throw new Error('injected: storage write failed');
        return super.compareAndSet(k, e, n);
      }
    }
    const storage = new FailingOnce();
    const node = newNode(storage);
    await expect(node.init({ secret_shares: 3, secret_threshold: 2 })).rejects.toThrow(/injected/);
    expect(await node.initStatus()).toEqual({ initialized: false });
    expect(await storage.list('')).toEqual([]);
    const init = await node.init({ secret_shares: 3, secret_threshold: 2 });
    for (const k of init.keys.slice(0, 2)) await node.unseal({ key: k });
    expect((await node.tokens.authenticate(init.root_token))?.isRoot).toBe(true);
    await node.close();
  });
});

describe('unseal', () => {
  it("on a sealed node, no key and no reset is Vault's 400 text", async () => {
    const storage = new MemoryStorage();
    const node = newNode(storage);
    await node.init({ secret_shares: 3, secret_threshold: 2 });
    for (const r of [{}, { key: '' }, { reset: false }]) {
      await expect(node.unseal(r)).rejects.toMatchObject({
        code: 'invalid_request',
        message: "'key' must be specified in request body as JSON, or 'reset' set to true",
      });
    }
  });

  it('on an unsealed node still checks the request, as Vault: reset, no key and a malformed key are 400', async () => {
    const { node, init } = await unsealed();
    await expect(node.unseal({ reset: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'vault is unsealed',
    });
    await expect(node.unseal({})).rejects.toMatchObject({
      code: 'invalid_request',
      message: "'key' must be specified in request body as JSON, or 'reset' set to true",
    });
    await expect(node.unseal({ key: 'not-a-share!' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect((await node.unseal({ key: init.keys[0] as string })).sealed).toBe(false);
    await node.close();
  });

  it('a node on a store another node initialised says "sealed", not "not initialized", once it has read the store', async () => {
    const { storage } = await unsealed();
    const other = newNode(storage);
    await other.sealStatus();
    expect(() => other.services()).toThrow('Vault is sealed');
  });

  it('counts progress to the threshold; duplicates do not count; the nonce names the attempt', async () => {
    const node = newNode();
    const { keys, keys_base64, root_token } = await node.init({
      secret_shares: 5,
      secret_threshold: 3,
    });
    const s1 = await node.unseal({ key: keys[4] });
    expect(s1).toMatchObject({ sealed: true, progress: 1, t: 3, n: 5 });
    expect(s1.nonce).toMatch(/^[0-9a-f-]{36}$/);
    const dup = await node.unseal({ key: keys_base64[4] });
    expect(dup).toMatchObject({ sealed: true, progress: 1, nonce: s1.nonce });
    expect(await node.unseal({ key: keys_base64[0] })).toMatchObject({ progress: 2 });
    const done = await node.unseal({ key: keys[2] });
    expect(done).toMatchObject({ sealed: false, progress: 0, nonce: '' });
    expect((await node.tokens.authenticate(root_token))?.policies).toEqual(['root']);
    // Unsealing an unsealed node only reports the status.
    expect(await node.unseal({ key: keys[1] })).toMatchObject({ sealed: false, progress: 0 });
  });

  it('reset drops the shares submitted so far; a new attempt gets a new nonce', async () => {
    const node = newNode();
    const { keys } = await node.init({ secret_shares: 3, secret_threshold: 2 });
    const first = await node.unseal({ key: keys[0] });
    expect(await node.unseal({ reset: true })).toMatchObject({ progress: 0, nonce: '' });
    const again = await node.unseal({ key: keys[1] });
    expect(again.progress).toBe(1);
    expect(again.nonce).not.toBe(first.nonce);
    expect(await node.unseal({ key: keys[2] })).toMatchObject({ sealed: false });
  });

  it('refuses malformed shares without echoing them, and wrong shares reset the progress', async () => {
    const node = newNode();
    await node.init({ secret_shares: 3, secret_threshold: 2 });
    for (const bad of ['', 'zz', 'abcd', 'a'.repeat(66 * 2)]) {
      const e = await node.unseal({ key: bad }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'invalid_request' });
      if (bad.length > 2) expect((e as Error).message).not.toContain(bad);
    }
    const other = await newNode().init({ secret_shares: 3, secret_threshold: 2 });
    await node.unseal({ key: other.keys[0] });
    await expect(node.unseal({ key: other.keys[1] })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/does not open the keyring/),
    });
    expect(await node.sealStatus()).toMatchObject({ sealed: true, progress: 0 });
  });

  it('a single share (1 of 1) is the root key itself', async () => {
    const node = newNode();
    const { keys } = await node.init({ secret_shares: 1, secret_threshold: 1 });
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(await node.unseal({ key: keys[0] })).toMatchObject({ sealed: false, t: 1, n: 1 });
  });
});

/** Every public method of a class (no constructor, getters or private members). */
function methods(proto: object): string[] {
  return Object.getOwnPropertyNames(proto).filter(
    (m) =>
      m !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, m)?.value === 'function',
  );
}

describe('seal', () => {
  it('every transit, token, lease and policy operation fails with sealed; kept references too', async () => {
    const { node, init } = await unsealed();
    await node.transit.createKey('k');
    const { ciphertext } = await node.transit.encrypt('k', { plaintext: b64('x') });
    const keptTransit = node.transit;
    const keptEncrypt = node.transit.encrypt;
    const before = node.services();
    await node.seal();
    expect(node.sealed).toBe(true);
    expect(await node.health()).toEqual({ initialized: true, sealed: true, standby: false });
    expect(() => node.services()).toThrow('Vault is sealed');
    const facades: [string, object, object][] = [
      ['transit', node.transit, Transit.prototype],
      ['tokens', node.tokens, TokenStore.prototype],
      ['leases', node.leases, LeaseManager.prototype],
      ['policies', node.policies, AclPolicyStore.prototype],
      ['kept services', before.transit, Transit.prototype],
    ];
    let checked = 0;
    for (const [, facade, proto] of facades) {
      for (const m of methods(proto)) {
        const call = () => (facade as Record<string, (...a: unknown[]) => unknown>)[m]?.('k', {});
        let error: unknown;
        try {
          await call();
        } catch (e) {
          error = e;
        }
        expect(error, m).toMatchObject({ code: 'sealed', message: 'Vault is sealed' });
        checked++;
      }
    }
    // A method that returns a promise when unsealed rejects when sealed (never throws at the
    // call): only the stream constructors of Transit are synchronous.
    const synchronous = new Set(['encryptStream', 'decryptStream']);
    for (const m of methods(Transit.prototype)) {
      const f = (node.transit as unknown as Record<string, (...a: unknown[]) => unknown>)[m];
      if (synchronous.has(m)) {
        expect(() => f?.('k', {}), m).toThrow('Vault is sealed');
        continue;
      }
      let out: unknown;
      expect(() => {
        out = f?.('k', {});
      }, m).not.toThrow();
      expect(out, m).toBeInstanceOf(Promise);
      await expect(out, m).rejects.toMatchObject({ code: 'sealed' });
    }
    expect(checked).toBeGreaterThan(50);
    expect(() => keptTransit.backendName).toThrow('Vault is sealed');
    await expect(keptEncrypt('k', { plaintext: b64('x') })).rejects.toMatchObject({
      code: 'sealed',
    });
    // Unseal again: new instances, the same data.
    await node.unseal({ key: init.keys[1] });
    await node.unseal({ key: init.keys[2] });
    expect((await keptTransit.decrypt('k', { ciphertext })).plaintext).toBe(b64('x'));
    expect(await node.tokens.authenticate(init.root_token)).toBeDefined();
    await node.close();
  });

  it('sealing closes the services: no timer, lease or lock survives', async () => {
    const storage = new MemoryStorage();
    const node = new TransitNode({ storage, rootKey: new Uint8Array(32).fill(7) });
    await node.start();
    expect(await node.health()).toMatchObject({ sealed: false, standby: false });
    await node.seal();
    // The leader lock was released: another node takes it at once.
    const other = new TransitNode({ storage, rootKey: new Uint8Array(32).fill(7) });
    await other.start();
    expect(await other.health()).toMatchObject({
      initialized: true,
      sealed: false,
      standby: false,
    });
    // A sealed auto-unseal node dropped its copy of the root key.
    await expect(node.start()).rejects.toMatchObject({ code: 'sealed' });
    await other.close();
  });

  it('rotates the keyring; old entries stay readable and another node picks the term up', async () => {
    const { storage, node, init } = await unsealed(1, 1);
    const peer = newNode(storage);
    await peer.unseal({ key: init.keys[0] });
    await node.transit.createKey('before');
    const ct = (await node.transit.encrypt('before', { plaintext: b64('old') })).ciphertext;
    expect(node.keyStatus()).toEqual({
      term: 1,
      install_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await node.rotateKeyring()).toEqual({ term: 2 });
    expect(await node.rotateKeyring()).toEqual({ term: 3 });
    await node.transit.createKey('after');
    expect((await storage.get('transit/policy/after'))?.[4]).toBe(3);
    expect((await storage.get('transit/policy/before'))?.[4]).toBe(1);
    expect((await node.transit.decrypt('before', { ciphertext: ct })).plaintext).toBe(b64('old'));
    const ct2 = (await peer.transit.encrypt('after', { plaintext: b64('new') })).ciphertext;
    expect(peer.keyStatus()).toMatchObject({ term: 3 });
    expect(Date.parse(peer.keyStatus().install_time)).toBeGreaterThanOrEqual(
      Date.parse(node.keyStatus().install_time) - 1_000,
    );
    expect((await node.transit.decrypt('after', { ciphertext: ct2 })).plaintext).toBe(b64('new'));
    await node.seal();
    expect(() => node.keyStatus()).toThrow('Vault is sealed');
    await expect(node.rotateKeyring()).rejects.toMatchObject({ code: 'sealed' });
    await peer.close();
  });
});

describe('auto-unseal', () => {
  const rootKey = () => new Uint8Array(32).map((_, i) => i + 1);

  it('initialises on first start, unseals on every start, and refuses init/unseal', async () => {
    const storage = new MemoryStorage();
    const first = newNode(storage, { rootKey: rootKey(), initialRootToken: 'root-given' });
    expect(await first.start()).toEqual({ root_token: 'root-given' });
    expect(await first.sealStatus()).toMatchObject({ type: 'auto', sealed: false, t: 1, n: 1 });
    expect((await first.tokens.authenticate('root-given'))?.policies).toEqual(['root']);
    await first.transit.createKey('k');
    await expect(first.init({ secret_shares: 1, secret_threshold: 1 })).rejects.toThrow(
      /auto-unseal/,
    );
    await expect(first.unseal({ key: 'aa' })).rejects.toThrow(/auto-unseal/);
    await first.close();
    const second = newNode(storage, { rootKey: rootKey() });
    expect(await second.start()).toEqual({});
    expect((await second.transit.readKey('k')).name).toBe('k');
    await second.close();
    const generated = newNode(new MemoryStorage(), { rootKey: rootKey() });
    expect((await generated.start()).root_token).toMatch(/^hvs\./);
    await generated.close();
  });

  it('a wrong root key does not unseal; a bad one is refused up front', async () => {
    const storage = new MemoryStorage();
    await newNode(storage, { rootKey: rootKey() }).start();
    const wrong = newNode(storage, { rootKey: new Uint8Array(32) });
    await expect(wrong.start()).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/does not open the keyring/),
    });
    expect(wrong.sealed).toBe(true);
    expect(() => newNode(storage, { rootKey: new Uint8Array(16) })).toThrow(/32 bytes/);
  });

  it('a second node on the same store without the leader lock is standby', async () => {
    const storage = new MemoryStorage();
    const a = newNode(storage, { rootKey: rootKey() });
    const b = newNode(storage, { rootKey: rootKey() });
    await a.start();
    await b.start();
    const ha = await a.health();
    expect(ha).toMatchObject({ initialized: true, sealed: false, standby: false });
    // One cluster: the same name and id on both nodes (made once, kept in the store).
    expect(ha.cluster_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ha.cluster_name).toBe(`vault-cluster-${ha.cluster_id?.slice(0, 8)}`);
    expect(await b.health()).toEqual({ ...ha, standby: true });
    await a.seal(); // releases the lock; b takes it at its next tick
    await b.leases.tick();
    expect(await b.health()).toMatchObject({ standby: false });
    await b.close();
  });
});
