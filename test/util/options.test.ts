/**
 * Every constructor refuses an option it does not know (src/util/options.ts):
 * a misspelt option — `maxTtlSecond`, `sinks` — would otherwise be its
 * default, in silence. And a `storage` must have every method of a storage
 * adapter, not just the one a constructor happened to test.
 */
import { describe, expect, it } from 'vitest';
import { AuditBroker } from '../../src/audit/broker.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { TransitNode } from '../../src/node/transit-node.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { optionKeys, refuseUnknownOptions } from '../../src/util/options.js';

const refusal = (message: string) => expect.objectContaining({ code: 'invalid_request', message });

/** An object with only compareAndSet: what the old checks let through. */
const casOnly = { compareAndSet: async () => true };

describe('refuseUnknownOptions', () => {
  it('names the first unknown key and the class', () => {
    const known = optionKeys<{ a?: number; b?: number }>({ a: true, b: true });
    expect(() => refuseUnknownOptions({ a: 1, b: 2 }, known, 'X')).not.toThrow();
    expect(() => refuseUnknownOptions({ a: 1, c: 2, d: 3 }, known, 'X')).toThrow(
      refusal("unknown X option 'c'"),
    );
  });
});

describe('LeaseManager options', () => {
  it('refuses an unknown option, naming it', () => {
    const storage = new MemoryStorage();
    expect(() => new LeaseManager({ storage, maxTtlSecond: 60 } as never)).toThrow(
      refusal("unknown LeaseManager option 'maxTtlSecond'"),
    );
  });

  it('refuses a storage that is not a whole adapter', () => {
    expect(() => new LeaseManager({ storage: casOnly as never })).toThrow(
      refusal("'storage' must be a StorageAdapter: it has no get"),
    );
  });
});

describe('AuditBroker options', () => {
  it('refuses an unknown option, naming it', async () => {
    const storage = new MemoryStorage();
    await expect(AuditBroker.open({ storage, sinks: () => undefined } as never)).rejects.toThrow(
      refusal("unknown AuditBroker option 'sinks'"),
    );
  });

  it('refuses a storage that is not a whole adapter (the old check took compareAndSet alone)', async () => {
    await expect(AuditBroker.open({ storage: casOnly as never })).rejects.toThrow(
      refusal("'storage' must be a StorageAdapter: it has no get"),
    );
  });

  it('opens with every known option', async () => {
    const b = await AuditBroker.open({
      storage: new MemoryStorage(),
      devices: {},
      sink: () => undefined,
      onFailure: () => undefined,
      logger: { error: () => undefined },
    });
    await b.close();
  });
});

describe('TokenStore options', () => {
  it('refuses an unknown option, naming it, and a partial storage', () => {
    const storage = new MemoryStorage();
    expect(() => new TokenStore({ storage, default_ttl: '1h' } as never)).toThrow(
      refusal("unknown TokenStore option 'default_ttl'"),
    );
    expect(() => new TokenStore({ storage: { get: async () => undefined } } as never)).toThrow(
      refusal("'storage' must be a StorageAdapter: it has no put"),
    );
    expect(() => new TokenStore({ storage, defaultTtl: '1h', maxTtl: '2h' })).not.toThrow();
  });
});

describe('TransitNode options', () => {
  const storage = new MemoryStorage();

  it('refuses an unknown option, naming it: a misspelt rootKey would mean a Shamir node', () => {
    expect(() => new TransitNode({ storage, rootkey: new Uint8Array(32) } as never)).toThrow(
      refusal("unknown TransitNode option 'rootkey'"),
    );
  });

  it('refuses an unknown option of a service at construction, not at the first unseal', () => {
    for (const [bad, name] of [
      [{ transit: { cacheSiz: 10 } }, 'transit.cacheSiz'],
      // Options the node sets itself are not the caller's to give.
      [{ transit: { storage } }, 'transit.storage'],
      [{ leases: { tickMS: 5 } }, 'leases.tickMS'],
      [{ leases: { tokenExists: async () => true } }, 'leases.tokenExists'],
      [{ tokens: { default_ttl: 60 } }, 'tokens.default_ttl'],
      [{ audit: { sinks: () => undefined } }, 'audit.sinks'],
    ] as const) {
      expect(() => new TransitNode({ storage, ...bad } as never)).toThrow(
        refusal(`unknown TransitNode option '${name}'`),
      );
    }
    expect(() => new TransitNode({ storage, transit: 5 } as never)).toThrow(
      refusal("'transit' must be an object of options"),
    );
  });

  it('refuses a storage that is not a whole adapter (the old check took compareAndSet alone)', () => {
    expect(() => new TransitNode({ storage: casOnly as never })).toThrow(
      refusal("'storage' must be a StorageAdapter: it has no get"),
    );
  });

  it('takes every option a service is passed on', async () => {
    const node = new TransitNode({
      storage: new MemoryStorage(),
      rootKey: new Uint8Array(32).fill(7),
      transit: { cacheSize: 10, autoRotate: false },
      leases: { tickMs: false, maxTtlSeconds: 3600 },
      tokens: { defaultTtl: '1h' },
      audit: { logger: { error: () => undefined } },
      version: '1.0.0',
      storageType: 'inmem',
    });
    await node.start();
    expect(node.sealed).toBe(false);
    await node.close();
  });
});

describe('the storage check', () => {
  it('names the first method a storage lacks, in the same words for every constructor', () => {
    const m = new MemoryStorage();
    const without = (name: string) => {
      const a: Record<string, unknown> = {
        get: m.get.bind(m),
        put: m.put.bind(m),
        delete: m.delete.bind(m),
        list: m.list.bind(m),
        compareAndSet: m.compareAndSet.bind(m),
      };
      delete a[name];
      return a as never;
    };
    for (const name of ['get', 'put', 'delete', 'list', 'compareAndSet']) {
      const message = `'storage' must be a StorageAdapter: it has no ${name}`;
      expect(() => new LeaseManager({ storage: without(name) })).toThrow(refusal(message));
      expect(() => new TokenStore({ storage: without(name) })).toThrow(refusal(message));
      expect(() => new TransitNode({ storage: without(name) })).toThrow(refusal(message));
    }
    expect(() => new TokenStore({ storage: 'file' as never })).toThrow(
      refusal("'storage' must be a StorageAdapter"),
    );
  });
});

describe("the methods' options objects refuse an unknown key too, before doing anything", () => {
  it("encrypt's { upsert }: a misspelt upsert never creates the key", async () => {
    const transit = new Transit({ autoRotate: false });
    await expect(
      transit.encrypt('new', { plaintext: 'aGk=' }, { upsret: false } as never),
    ).rejects.toEqual(refusal("unknown encrypt option 'upsret'"));
    expect((await transit.listKeys()).keys).toEqual([]);
    await expect(
      transit.encrypt('new', { plaintext: 'aGk=' }, { upsert: false }),
    ).rejects.toMatchObject({ code: 'invalid_request', message: 'encryption key not found' });
    await transit.close();
  });

  it("a revoke's { sync }: the lease stays until a known option is given", async () => {
    const storage = new MemoryStorage();
    const leases = new LeaseManager({ storage });
    leases.registerRevoker('db/', () => undefined);
    const { lease_id } = await leases.issue({ path: 'db/creds/ro', ttl: 60, renewable: true });
    await expect(leases.revoke(lease_id, { snyc: true } as never)).rejects.toEqual(
      refusal("unknown revoke option 'snyc'"),
    );
    await expect(leases.revokePrefix('db/', { synk: false } as never)).rejects.toEqual(
      refusal("unknown revoke option 'synk'"),
    );
    expect((await leases.lookup(lease_id)).id).toBe(lease_id);
    await leases.revoke(lease_id, { sync: true });
    await expect(leases.lookup(lease_id)).rejects.toMatchObject({ code: 'invalid_request' });
    await leases.stop();
  });

  it("the token store's { sudo, orphan } and { id }: refused, no token made or revoked", async () => {
    const storage = new MemoryStorage();
    const tokens = new TokenStore({ storage });
    const root = await tokens.createRoot();
    const ctx = await tokens.authenticate(root);
    if (!ctx) throw new Error('root did not authenticate');
    const stored = await storage.list('');
    await expect(tokens.createRoot({ idd: 'chosen' } as never)).rejects.toEqual(
      refusal("unknown createRoot option 'idd'"),
    );
    await expect(tokens.create(ctx, {}, { sduo: true } as never)).rejects.toEqual(
      refusal("unknown create option 'sduo'"),
    );
    // Neither refusal stored a token (a root or a child) or anything else.
    expect(await storage.list('')).toEqual(stored);
    const child = await tokens.create(ctx, { policies: ['default'] });
    await expect(tokens.revokeOrphan(child.client_token, { sudoo: true } as never)).rejects.toEqual(
      refusal("unknown revokeOrphan option 'sudoo'"),
    );
    expect(await tokens.exists(child.client_token)).toBe(true);
    await tokens.close();
  });
});
