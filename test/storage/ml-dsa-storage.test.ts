/**
 * ML-DSA keys (#16) persist on the file and Redis adapters: a key created,
 * rotated and used by one engine is read back by a fresh engine on the same
 * storage (a restart), which verifies the old signatures, signs with each
 * version and exports the same seed. Redis is skipped with its reason only
 * outside CI when no redis-server is installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { RedisStorage } from '../../adapters/redis/index.js';
import type { StorageAdapter as Storage } from '../../src/storage/adapter.js';
import { Transit } from '../../src/transit/transit.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

const INPUT = Buffer.from('persisted post-quantum key').toString('base64');

/** Create, rotate, sign on one engine; check everything from a second engine on `reopen()`. */
async function roundTrip(first: Storage, reopen: () => Promise<Storage>): Promise<void> {
  const a = new Transit({ storage: first, autoRotate: false });
  for (const type of ['mldsa-44', 'mldsa-65', 'mldsa-87'] as const) {
    await a.createKey(type, { type, exportable: true });
    await a.rotateKey(type);
  }
  const before = new Map<string, { sig: string; seed: unknown }>();
  for (const type of ['mldsa-44', 'mldsa-65', 'mldsa-87']) {
    const { signature } = await a.sign(type, { input: INPUT, key_version: 1 });
    const seed = (await a.exportKey('signing-key', type, 1, { format: 'raw' })).keys['1'];
    before.set(type, { sig: signature, seed });
  }
  await a.close();
  await first.close?.();
  const b = new Transit({ storage: await reopen(), crypto: 'noble', autoRotate: false });
  for (const [type, { sig, seed }] of before) {
    expect((await b.readKey(type)).latest_version).toBe(2);
    expect((await b.verify(type, { input: INPUT, signature: sig })).valid).toBe(true);
    expect((await b.exportKey('signing-key', type, 1, { format: 'raw' })).keys['1']).toBe(seed);
    for (const key_version of [1, 2]) {
      const { signature } = await b.sign(type, { input: INPUT, key_version });
      expect((await b.verify(type, { input: INPUT, signature })).valid).toBe(true);
    }
  }
  await b.close();
}

describe('ML-DSA keys on persistent storage', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('file adapter: a fresh engine reads, verifies, signs and exports the same seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-mldsa-'));
    dirs.push(dir);
    await roundTrip(await FileStorage.open(dir), () => FileStorage.open(dir));
  });

  it.skipIf(SKIP_REDIS)(
    `redis adapter: the same after a restart${SKIP_REDIS ? ` (skipped: ${NO_REDIS_REASON})` : ''}`,
    async () => {
      const server = await RedisServer.start({ appendonly: true, appendfsync: 'always' });
      try {
        const prefix = `mldsa-${Date.now()}`;
        const conns: RedisStorage[] = [];
        const open = async () => {
          const s = await RedisStorage.connect(server.url, { prefix });
          conns.push(s);
          return s;
        };
        await roundTrip(await open(), async () => {
          await server.stop();
          await server.restart();
          return open();
        });
        await conns.at(-1)?.close();
      } finally {
        await server.destroy();
      }
    },
  );
});
