/**
 * Two brokers on one store: an instance whose change feed failed, or whose
 * table read after a notification failed, never serves a request without a
 * device enabled through the other (fail closed). It swallowed a failed
 * `watch` and kept its old device set, and a failed re-read after a
 * notification was only logged: its requests then went unaudited while
 * `GET sys/audit` listed the device. Now each entry reads the table first
 * while the feed is not live or a notification is not yet caught up; and an
 * instance opening while another enables a device never applies the table it
 * read at start over a newer one a notification brought meanwhile.
 */
import { describe, expect, it } from 'vitest';
import { AuditBroker, MemoryStorage, type StorageAdapter } from '../../src/index.js';
import { recorder, request } from './support.js';

/** `inner` with some methods replaced. */
function wrap(inner: MemoryStorage, over: Record<string, unknown>): StorageAdapter {
  return new Proxy(inner, {
    get(t, p, r) {
      if (typeof p === 'string' && p in over) return over[p];
      const v = Reflect.get(t, p, r);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  }) as unknown as StorageAdapter;
}

const quiet = { error: () => undefined };
const tick = () => new Promise((r) => setTimeout(r, 20));

/**
 * Broker A on a shared store and broker B on `storageOfB(shared, a)`; `run`
 * gets both. Then B logs a request: it must be served and recorded by the
 * device A enabled (`shared/`).
 */
async function twoBrokers(
  storageOfB: (shared: MemoryStorage, a: AuditBroker) => StorageAdapter,
  run: (a: AuditBroker, b: AuditBroker) => Promise<void>,
): Promise<void> {
  const shared = new MemoryStorage();
  const rec = recorder();
  const devices = { mem: rec.factory };
  const a = await AuditBroker.open({ storage: shared, devices, logger: quiet });
  const b = await AuditBroker.open({ storage: storageOfB(shared, a), devices, logger: quiet });
  try {
    await run(a, b);
    let served = true;
    await b.logRequest(request({ id: 'via-b' })).catch(() => {
      served = false;
    });
    const recorded = rec.entries('shared/').some((e) => e.request.id === 'via-b');
    expect({ served, recorded }).toEqual({ served: true, recorded: true });
  } finally {
    await b.close();
    await a.close();
  }
}

describe('two instances on one store', () => {
  it('an instance whose watch failed still records to a device enabled elsewhere', async () => {
    await twoBrokers(
      (shared) => wrap(shared, { watch: () => Promise.reject(new Error('subscriber refused')) }),
      async (a, b) => {
        await a.enable('shared', { type: 'mem' });
        expect(Object.keys(await b.list())).toEqual(['shared/']);
      },
    );
  });

  it('a notification whose table read fails once is not lost', async () => {
    let failNext = false;
    await twoBrokers(
      (shared) =>
        wrap(shared, {
          get: (key: string) => {
            if (failNext && key === 'sys/audit/table') {
              failNext = false;
              return Promise.reject(new Error('storage briefly unavailable'));
            }
            return shared.get(key);
          },
        }),
      async (a) => {
        failNext = true;
        await a.enable('shared', { type: 'mem' });
        await tick(); // B's catch-up fails
        expect(failNext).toBe(false);
      },
    );
  });

  it('an instance opening while another enables a device records to it once open returns', async () => {
    let armed = true;
    await twoBrokers(
      (shared, a) =>
        wrap(shared, {
          get: async (key: string) => {
            // The table read of B's start-up, not its change feed's first catch-up.
            const fromStart = new Error().stack?.includes('#start') ?? false;
            if (armed && fromStart && key === 'sys/audit/table') {
              armed = false;
              const old = await shared.get(key); // the read's snapshot
              await a.enable('shared', { type: 'mem' }); // committed and notified meanwhile
              await tick(); // B's notification catch-up runs
              return old;
            }
            return shared.get(key);
          },
        }),
      async (_, b) => {
        expect(armed).toBe(false);
        expect(Object.keys(await b.list())).toEqual(['shared/']);
        await tick();
      },
    );
  });
});
