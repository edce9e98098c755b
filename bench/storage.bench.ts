/**
 * `npm run bench:storage` — the shared storage adapters side by side, in one
 * run, as ratios against Redis: PostgreSQL, Redis and file storage, each under
 * a `Transit` engine (issue 20).
 *
 * Groups (every case checked for correctness before it is timed; see harness.ts):
 * - `encrypt, key cache on`: 64-byte encrypts cycling over 20 keys, all cached
 *   (cache unbounded): storage is not touched, so the ratios should be ~1;
 * - `encrypt, key cache off`: the same with a 10-entry LRU cycling over 20 keys,
 *   so every encrypt misses and reads its key from storage;
 * - `rotate`: rotations round-robin over 50 keys (a compare-and-set write each);
 * - `list page`: a page of 100 keys from a random point of 10,000.
 *
 * Starts its own redis-server and PostgreSQL (initdb in a temp directory) on
 * free ports, as the tests do; an engine whose server binaries are missing is
 * left out with a printed reason. `--quick` is a short smoke run.
 * @module
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStorage } from '../adapters/file/index.js';
import { PostgresStorage } from '../adapters/postgres/index.js';
import { RedisStorage } from '../adapters/redis/index.js';
import type { StorageAdapter } from '../src/index.js';
import { Transit } from '../src/index.js';
import {
  NO_POSTGRES_REASON,
  POSTGRES_BIN,
  PostgresServer,
} from '../test/helpers/postgres-server.js';
import { NO_REDIS_REASON, REDIS_SERVER, RedisServer } from '../test/helpers/redis-server.js';
import { type Case, compare, printTable, quick, type Row } from './harness.js';

interface Engine {
  name: string;
  storage: StorageAdapter;
  close: () => Promise<void>;
}

const KEYS = 20;
const ROTATE_KEYS = 50;
const LIST_KEYS = quick ? 1_000 : 10_000;
const plaintext = Buffer.alloc(64, 7).toString('base64');

async function engines(): Promise<Engine[]> {
  const out: Engine[] = [];
  if (REDIS_SERVER !== undefined) {
    const server = await RedisServer.start({ appendonly: true, appendfsync: 'everysec' });
    const storage = await RedisStorage.connect(server.url);
    out.push({
      name: 'redis',
      storage,
      close: async () => {
        await storage.close();
        await server.destroy();
      },
    });
  } else console.log(`redis left out: ${NO_REDIS_REASON}`);
  if (POSTGRES_BIN !== undefined) {
    const server = await PostgresServer.start({ fsync: true });
    const storage = await PostgresStorage.connect(server.url);
    out.push({
      name: 'postgres',
      storage,
      close: async () => {
        await storage.close();
        await server.destroy();
      },
    });
  } else console.log(`postgres left out: ${NO_POSTGRES_REASON}`);
  const dir = await mkdtemp(join(tmpdir(), 'transitkit-bench-file-'));
  const file = await FileStorage.open(dir);
  out.push({
    name: 'file',
    storage: file,
    close: async () => {
      await file.close();
      await rm(dir, { recursive: true, force: true });
    },
  });
  return out;
}

/** One Transit per engine, with `KEYS` keys created; `cacheSize` as given. */
async function transits(list: Engine[], cacheSize: number, tag: string): Promise<Transit[]> {
  return Promise.all(
    list.map(async (e) => {
      const t = new Transit({ storage: e.storage, autoRotate: false, cacheSize });
      for (let i = 0; i < KEYS; i++) await t.createKey(`${tag}-${i}`);
      return t;
    }),
  );
}

async function encryptGroup(list: Engine[], cache: boolean): Promise<Row[]> {
  const tag = cache ? 'cached' : 'uncached';
  const ts = await transits(list, cache ? 0 : 10, tag);
  const cases: Case[] = list.map((e, i) => {
    const t = ts[i] as Transit;
    let n = 0;
    return {
      name: e.name,
      check: async () => {
        const { ciphertext } = await t.encrypt(`${tag}-0`, { plaintext });
        if ((await t.decrypt(`${tag}-0`, { ciphertext })).plaintext !== plaintext) {
          throw new Error(`${e.name}: round trip failed`);
        }
      },
      fn: () => t.encrypt(`${tag}-${n++ % KEYS}`, { plaintext }),
    };
  });
  const rows = await compare(`encrypt 64 B, key cache ${cache ? 'on' : 'off'}`, cases);
  await Promise.all(ts.map((t) => t.close()));
  return rows;
}

async function rotateGroup(list: Engine[]): Promise<Row[]> {
  const ts = list.map((e) => new Transit({ storage: e.storage, autoRotate: false }));
  for (const t of ts) for (let i = 0; i < ROTATE_KEYS; i++) await t.createKey(`rot-${i}`);
  const cases: Case[] = list.map((e, i) => {
    const t = ts[i] as Transit;
    let n = 0;
    return {
      name: e.name,
      check: async () => {
        const before = (await t.readKey('rot-0')).latest_version;
        if ((await t.rotateKey('rot-0')).latest_version !== before + 1) {
          throw new Error(`${e.name}: rotate did not add one version`);
        }
      },
      fn: () => t.rotateKey(`rot-${n++ % ROTATE_KEYS}`),
    };
  });
  const rows = await compare('rotate', cases);
  await Promise.all(ts.map((t) => t.close()));
  return rows;
}

async function listGroup(list: Engine[]): Promise<Row[]> {
  const key = (i: number) => `list/${String(i).padStart(6, '0')}`;
  for (const e of list) {
    for (let i = 0; i < LIST_KEYS; i += 200) {
      await Promise.all(
        Array.from({ length: 200 }, (_, j) => e.storage.put(key(i + j), new Uint8Array(8))),
      );
    }
  }
  let seed = 1;
  const random = () => {
    seed = (seed * 48271) % 2147483647;
    return seed % (LIST_KEYS - 100);
  };
  const cases: Case[] = list.map((e) => ({
    name: e.name,
    check: async () => {
      const page = await e.storage.list('list/', { after: key(5).slice(5), limit: 100 });
      if (page.length !== 100 || page[0] !== key(6).slice(5)) {
        throw new Error(`${e.name}: wrong list page`);
      }
    },
    fn: () => e.storage.list('list/', { after: key(random()).slice(5), limit: 100 }),
  }));
  return compare(`list page of 100 in ${LIST_KEYS.toLocaleString('en')} keys`, cases);
}

const list = await engines();
// Redis first: it is every group's baseline (ratios are ops/s ÷ Redis' ops/s).
list.sort((a, b) => (a.name === 'redis' ? -1 : b.name === 'redis' ? 1 : 0));
console.log(
  `transitkit storage bench — node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}${quick ? ' (quick)' : ''}; engines: ${list.map((e) => e.name).join(', ')}`,
);
try {
  const rows = [
    ...(await encryptGroup(list, true)),
    ...(await encryptGroup(list, false)),
    ...(await rotateGroup(list)),
    ...(await listGroup(list)),
  ];
  printTable(rows);
} finally {
  for (const e of list) await e.close();
}
