/**
 * Every constructor refuses an option it does not know (src/util/options.ts):
 * a misspelt option — `maxTtlSecond`, `sinks` — would otherwise be its
 * default, in silence. And a `storage` must have every method of a storage
 * adapter, not just the one a constructor happened to test.
 */
import { describe, expect, it } from 'vitest';
import { AuditBroker } from '../../src/audit/broker.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
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
      refusal("'storage' must be a StorageAdapter"),
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
      refusal("'storage' must be a StorageAdapter"),
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
