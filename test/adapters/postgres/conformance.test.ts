/**
 * PostgresStorage: the shared conformance suites (core, lock, watch) against a
 * real PostgreSQL server started for this file (initdb in a temp directory,
 * a free port).
 *
 * Each fixture gets a fresh table (its own store); lock and watch fixtures
 * return a `peer`: a second PostgresStorage on its own pool over the same table,
 * acting as the other node.
 */
import pg from 'pg';
import {
  LOCK_CLOCK_TESTS,
  runLockConformance,
  runStorageConformance,
  runWatchConformance,
  type SkipRule,
} from 'transitkit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage } from '../../../adapters/postgres/index.js';
import {
  NO_POSTGRES_REASON,
  PostgresServer,
  SKIP_POSTGRES,
} from '../../helpers/postgres-server.js';

const SERVER_CLOCK: SkipRule = {
  reason:
    'lease expiry runs on the PostgreSQL server clock, not a FakeClock; real-TTL expiry is covered in postgres-storage.test.ts',
  tests: [...LOCK_CLOCK_TESTS],
};

/** The exported suite registers its tests with this file's vitest. */
const harness = { describe, it, expect };

let n = 0;
const freshTable = (): string => `t${process.pid}_${++n}`;

describe.skipIf(SKIP_POSTGRES)('PostgresStorage on a real PostgreSQL', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await PostgresServer.start();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  /** A store (from `connect`) and a peer (on a pool passed in) on one fresh table. */
  async function pair() {
    const table = freshTable();
    const storage = await PostgresStorage.connect(server.url, { table, maxConnections: 4 });
    const pool = new pg.Pool({ connectionString: server.url, max: 4 });
    const peer = new PostgresStorage(pool, { table });
    return {
      storage,
      peer,
      cleanup: async () => {
        await storage.close();
        await peer.close();
        await pool.end();
      },
    };
  }

  runStorageConformance(harness, 'postgres', async () => {
    const table = freshTable();
    const storage = await PostgresStorage.connect(server.url, { table, maxConnections: 4 });
    return { storage };
  });
  runLockConformance(harness, 'postgres', pair, { skip: [SERVER_CLOCK] });
  runWatchConformance(harness, 'postgres', pair);
});

if (SKIP_POSTGRES) it.skip(`PostgresStorage conformance [skipped: ${NO_POSTGRES_REASON}]`);
