/**
 * Two transitkit instances sharing one PostgreSQL database
 * (`transitkit/adapters/postgres`): a key created and rotated by one is used by
 * the other at once (LISTEN/NOTIFY drops its cached copy), and only one of them
 * holds the leader lock.
 *
 * Uses the database at `TRANSITKIT_POSTGRES_URL` when set; otherwise, in the
 * repository, starts a throwaway PostgreSQL server (initdb in a temp
 * directory, a free port) and removes it at the end. Without PostgreSQL
 * binaries it says so and exits (in CI it fails instead); from the installed
 * package it asks for the URL.
 *
 * Run: `npm run build && npx tsx examples/postgres.ts` (CI runs every example).
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { Transit } from 'transitkit';
import { PostgresStorage } from 'transitkit/adapters/postgres';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s: string) => Buffer.from(s, 'base64').toString();

let server: { url: string; destroy(): Promise<void> } | undefined;
let url = process.env.TRANSITKIT_POSTGRES_URL;
if (url === undefined) {
  // The throwaway server comes from the repository's test helpers; the
  // installed package has none, so there the database must be given.
  const helper = new URL('../test/helpers/postgres-server.ts', import.meta.url);
  if (!existsSync(helper)) {
    console.log('set TRANSITKIT_POSTGRES_URL=postgres://user@host/db to run this example');
    process.exit(0);
  }
  const { NO_POSTGRES_REASON, POSTGRES_BIN, PostgresServer } = (await import(
    helper.href
  )) as typeof import('../test/helpers/postgres-server.js');
  if (POSTGRES_BIN === undefined) {
    if (process.env.CI) throw new Error(NO_POSTGRES_REASON);
    console.log(`skipped: ${NO_POSTGRES_REASON}`);
    process.exit(0);
  }
  server = await PostgresServer.start();
  url = server.url;
  console.log('started a temporary PostgreSQL on', url);
}

try {
  // Two instances, as two app processes would be: each its own pool. A makes
  // its pool from the URL; B is given a pg.Pool the app already has.
  const table = `example_${process.pid}`; // a store of its own (one table)
  const storageA = await PostgresStorage.connect(url, { table }); // creates the table
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const storageB = new PostgresStorage(pool, { table });
  const a = new Transit({ storage: storageA, autoRotate: false });
  const b = new Transit({ storage: storageB, autoRotate: false });

  await a.createKey('orders');
  const { ciphertext } = await b.encrypt('orders', { plaintext: b64('card 4111-1111') });
  console.log('B encrypted ', ciphertext);
  console.log('A decrypted ', text((await a.decrypt('orders', { ciphertext })).plaintext));

  // B hears about A's rotation through NOTIFY; wait for it, then encrypt on B.
  let hear = (): void => undefined;
  const heard = new Promise<void>((resolve) => {
    hear = resolve;
  });
  await storageB.watch('', () => hear());
  await a.rotateKey('orders');
  await heard;
  const v2 = await b.encrypt('orders', { plaintext: b64('card 4111-1111') });
  console.log('B after A rotated:', v2.ciphertext.slice(0, 9), '(version 2)');
  if (!v2.ciphertext.startsWith('vault:v2:')) throw new Error('B did not see the rotation');

  // Leader duties: one holder at a time, across processes (lease on the server clock).
  const leader = await storageA.lock('leader', 10_000);
  console.log(
    'A leader:',
    leader !== undefined,
    '| B leader:',
    (await storageB.lock('leader', 10_000)) !== undefined,
  );
  await leader?.release();

  await a.close();
  await b.close();
  await storageA.close();
  await storageB.close(); // leaves the app's pool open
  await pool.query(`DROP TABLE "${table}", "${table}_locks", "${table}_ops"`); // tidy up the example's store
  await pool.end();
} finally {
  await server?.destroy();
}
