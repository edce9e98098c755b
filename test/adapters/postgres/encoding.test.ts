/**
 * PostgresStorage on a database whose encoding is not UTF8. Keys are any
 * Unicode text (the storage contract) and sit in a `text` column, so on a
 * LATIN1 database a key outside that charset failed at its first `put` with
 * `internal` "PostgreSQL statement failed [22P05]", after `connect` and
 * `migrate` had succeeded. Such a database is refused at connect (and by
 * `migrate` on a pool handed in), naming the encoding; SQL_ASCII, which keeps
 * the client's UTF-8 bytes, stores every key.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage, postgresSchemaSql } from '../../../adapters/postgres/index.js';
import { PostgresServer } from '../../helpers/postgres-server.js';

let server: PostgresServer;
beforeAll(async () => {
  server = await PostgresServer.start();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(
    "CREATE DATABASE latin1db ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0",
  );
  await admin.query(
    "CREATE DATABASE asciidb ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0",
  );
  await admin.end();
  // A store whose tables were made by hand from postgresSchemaSql (then `migrate: false`).
  const dba = new pg.Client({ connectionString: server.url.replace(/\/postgres$/, '/latin1db') });
  await dba.connect();
  await dba.query(postgresSchemaSql('hand'));
  await dba.end();
}, 60_000);
afterAll(async () => {
  await server?.destroy();
});

const b = (s: string) => new TextEncoder().encode(s);

const refused = {
  code: 'invalid_request',
  message: expect.stringMatching(/encoding is LATIN1; it must be UTF8/),
};

describe('PostgresStorage and the database encoding', () => {
  it('refuses a LATIN1 database at connect, naming the encoding', async () => {
    const url = server.url.replace(/\/postgres$/, '/latin1db');
    await expect(PostgresStorage.connect(url, { table: 'enc' })).rejects.toMatchObject(refused);
  });

  it('refuses it on a pool handed in, before the first write', async () => {
    const pool = new pg.Pool({ connectionString: server.url.replace(/\/postgres$/, '/latin1db') });
    const storage = new PostgresStorage(pool, { table: 'enc' });
    try {
      await expect(storage.put('café', b('x'))).rejects.toMatchObject(refused);
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it('refuses it with tables made by hand (migrate: false), before the first write', async () => {
    const pool = new pg.Pool({ connectionString: server.url.replace(/\/postgres$/, '/latin1db') });
    const storage = new PostgresStorage(pool, { table: 'hand', migrate: false });
    try {
      await expect(storage.put('ключ', b('x'))).rejects.toMatchObject(refused);
      await expect(storage.get('a')).rejects.toMatchObject(refused);
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it('stores every Unicode key on SQL_ASCII', async () => {
    const storage = await PostgresStorage.connect(server.url.replace(/\/postgres$/, '/asciidb'), {
      table: 'enc',
    });
    try {
      const keys = ['🔑', 'ключ', '鍵/秘密', 'café'];
      for (const k of keys) await storage.put(k, b(k));
      for (const k of keys) expect(new TextDecoder().decode(await storage.get(k))).toBe(k);
      expect(await storage.list('')).toEqual([...keys].sort());
    } finally {
      await storage.close();
    }
  });
});
