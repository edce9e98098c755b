/**
 * PostgresStorage across PostgreSQL server restarts:
 *
 * - a fast shutdown (SIGINT: clients disconnected, clean stop) and an
 *   immediate one (SIGQUIT: a crash, WAL recovery on restart) while a writer is
 *   running: the same PostgresStorage (no new connect) carries on, statements
 *   issued during the outage wait and complete once the server is back, and
 *   every write that was acknowledged is there, with its value, and listed.
 *   A put whose commit was cut by the crash may be reported as "may or may not
 *   have been applied" (write-once.ts: the server restarted, so a committed
 *   transaction id could be another's); the writer writes it again;
 * - a CAS counter incremented through the crash ends equal to its last
 *   acknowledged value (no lost and no phantom increment). A CAS whose
 *   connection broke in flight fails (its outcome is unknown) and the counter,
 *   like any caller, reads again and retries;
 * - watchers listen again and are told about every key once (changes made
 *   while the listening connection was down cannot be known otherwise).
 *
 * The writer is observed through events (a promise per acknowledged write),
 * never through sleeps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../adapters/postgres/index.js';
import { isTransitError } from '../../../src/errors.js';
import { b, expectAcked, startWriter, text } from '../../helpers/acked-writer.js';
import {
  NO_POSTGRES_REASON,
  PostgresServer,
  SKIP_POSTGRES,
  type StopMode,
} from '../../helpers/postgres-server.js';

if (SKIP_POSTGRES) it.skip(`PostgresStorage restarts [skipped: ${NO_POSTGRES_REASON}]`);

describe.skipIf(SKIP_POSTGRES)('PostgresStorage across PostgreSQL restarts', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  async function setup() {
    const server = await PostgresServer.start({ fsync: true });
    cleanups.push(() => server.destroy());
    const storage = await PostgresStorage.connect(server.url, { retryTimeoutMs: 60_000 });
    cleanups.push(() => storage.close());
    return { server, storage };
  }

  for (const mode of ['fast', 'immediate'] as StopMode[]) {
    it(`${mode} shutdown mid-write: statements resume, nothing acknowledged is lost`, async () => {
      const { server, storage } = await setup();
      const writer = startWriter(storage, 400);
      await writer.reached(100);
      await server.stop(mode);
      const ackedBeforeStop = [...writer.acked];
      expect(ackedBeforeStop.length).toBeGreaterThanOrEqual(100);
      await server.restart();
      await writer.done; // the same pool reconnected; the waiting writes went through
      expect(writer.acked).toHaveLength(400);
      // Only a crash during a commit leaves an outcome unknown (write-once.ts).
      if (mode === 'fast') expect(writer.unknown).toEqual([]);
      else console.log(`immediate shutdown: ${writer.unknown.length} put(s) with unknown outcome`);
      await expectAcked(storage, writer.acked);
      expect(await storage.list('restart/')).toHaveLength(400);

      // And once more, with nothing in flight: data survives a second restart.
      await server.stop(mode);
      await server.restart();
      await expectAcked(storage, ackedBeforeStop);
      await storage.put('after', b('ok'));
      expect(text(await storage.get('after'))).toBe('ok');
    }, 120_000);
  }

  it('a CAS counter driven through a crash ends at its last acknowledged value', async () => {
    const { server, storage } = await setup();
    let acked = 0;
    let unknownOutcomes = 0;
    let reachedResolve!: () => void;
    const reached50 = new Promise<void>((r) => {
      reachedResolve = r;
    });
    const counter = (async () => {
      while (acked < 200) {
        const cur = await storage.get('counter');
        const value = cur === undefined ? 0 : Number(text(cur));
        let swapped: boolean;
        try {
          swapped = await storage.compareAndSet('counter', cur, b(String(value + 1)));
        } catch (e) {
          // The connection broke with the statement in flight: read again.
          expect(isTransitError(e, 'internal'), String(e)).toBe(true);
          expect(String(e)).toMatch(/may or may not have been applied/);
          unknownOutcomes++;
          continue;
        }
        if (swapped) {
          acked = value + 1;
          if (acked === 50) reachedResolve();
        }
      }
    })();
    await reached50;
    await server.stop('immediate');
    const atKill = acked;
    await server.restart();
    // The first read after the crash already holds every acknowledged increment.
    expect(Number(text(await storage.get('counter')))).toBeGreaterThanOrEqual(atKill);
    await counter;
    expect(text(await storage.get('counter'))).toBe(String(acked));
    expect(acked).toBe(200);
    console.log(`CAS counter through a crash: ${unknownOutcomes} CAS with unknown outcome`);
  }, 120_000);

  it('watchers listen again and are told about every key after a restart', async () => {
    const { server, storage } = await setup();
    const other = await PostgresStorage.connect(server.url, { retryTimeoutMs: 60_000 });
    cleanups.push(() => other.close());
    await storage.put('policy/a', b('1'));
    await storage.put('policy/b', b('1'));
    await storage.put('other/x', b('1'));
    const seen: string[] = [];
    const sawAll = (keys: string[]) =>
      expect.poll(() => keys.every((k) => seen.includes(k)), { timeout: 20_000 }).toBe(true);
    await storage.watch('policy/', (k) => seen.push(k));

    await server.stop('fast');
    await server.restart();
    // The full report after listening again: the prefix itself (anything under it
    // may have changed, deletions included), then every key under it, once.
    await sawAll(['policy/', 'policy/a', 'policy/b']);
    expect([...seen].sort()).toEqual(['policy/', 'policy/a', 'policy/b']);

    // Live notifications flow again, from another instance.
    await other.put('policy/c', b('1'));
    await sawAll(['policy/c']);
    expect(seen.filter((k) => k === 'policy/c')).toHaveLength(1);
    expect(seen).not.toContain('other/x');
  }, 120_000);
});
