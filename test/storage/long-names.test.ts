/**
 * Every valid key name works on every adapter with any number of rotations
 * (issue #15 item 5). Names up to the documented 128 characters, including
 * the worst case for FileStorage's file names (upper case and dots, 3 bytes
 * each when percent-encoded), are created, rotated past the hot window (so
 * versions are archived under longer storage keys), used to encrypt at every
 * version, and every ciphertext decrypted — on memory, file (also after a
 * reopen, through the barrier) and Redis storage.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStorage } from '../../adapters/file/index.js';
import { RedisStorage } from '../../adapters/redis/index.js';
import { MAX_KEY_NAME_LENGTH } from '../../src/keys/names.js';
import { TransitNode } from '../../src/node/transit-node.js';
import type { StorageAdapter } from '../../src/storage/adapter.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

const ROTATIONS = 40;

/** Long names: the 70 upper-case characters, ~79+, and 128 of the worst kind. */
const NAMES = [
  'K'.repeat(70),
  'K'.repeat(80),
  `${'A.'.repeat(63)}AA`, // 128 characters, every one percent-encoded
  'z'.repeat(MAX_KEY_NAME_LENGTH),
  `a-${'B_'.repeat(62)}9`,
];

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'transitkit-longnames-'));
  roots.push(root);
  return join(root, 'data');
}

const pt = (name: string, v: number) => Buffer.from(`${name.slice(0, 8)} v${v}`).toString('base64');

/** Create, rotate and encrypt at every version; returns the ciphertexts by version. */
async function exercise(transit: Transit, name: string): Promise<string[]> {
  expect(NAMES.every((n) => n.length <= MAX_KEY_NAME_LENGTH)).toBe(true);
  await transit.createKey(name);
  const cts = [(await transit.encrypt(name, { plaintext: pt(name, 1) })).ciphertext];
  for (let v = 2; v <= ROTATIONS + 1; v++) {
    const info = await transit.rotateKey(name);
    expect(info.latest_version).toBe(v);
    cts.push((await transit.encrypt(name, { plaintext: pt(name, v) })).ciphertext);
  }
  return cts;
}

async function expectDecrypts(transit: Transit, name: string, cts: string[]): Promise<void> {
  for (const [i, ciphertext] of cts.entries()) {
    expect(ciphertext.startsWith(`vault:v${i + 1}:`)).toBe(true);
    expect((await transit.decrypt(name, { ciphertext })).plaintext).toBe(pt(name, i + 1));
  }
}

async function roundTrip(storage: StorageAdapter): Promise<Map<string, string[]>> {
  const transit = new Transit({ storage, autoRotate: false });
  const all = new Map<string, string[]>();
  try {
    for (const name of NAMES) all.set(name, await exercise(transit, name));
    for (const name of NAMES) await expectDecrypts(transit, name, all.get(name) as string[]);
    expect((await transit.listKeys()).keys.sort()).toEqual([...NAMES].sort());
  } finally {
    await transit.close();
  }
  return all;
}

describe('key names up to 128 characters, rotated 40 times', () => {
  it('memory', async () => {
    await roundTrip(new MemoryStorage());
  });

  it('file, and again after a reopen', async () => {
    const dir = await tempDir();
    const first = await FileStorage.open(dir);
    const all = await roundTrip(first).finally(() => first.close());
    const again = await FileStorage.open(dir);
    const transit = new Transit({ storage: again, autoRotate: false });
    try {
      expect((await transit.listKeys()).keys.sort()).toEqual([...NAMES].sort());
      for (const name of NAMES) {
        await expectDecrypts(transit, name, all.get(name) as string[]);
        expect((await transit.rotateKey(name)).latest_version).toBe(ROTATIONS + 2);
      }
    } finally {
      await transit.close();
      await again.close();
    }
  });

  it('file through the barrier (TransitNode), after a restart', async () => {
    const dir = await tempDir();
    const rootKey = new Uint8Array(randomBytes(32));
    const open = async () => {
      const storage = await FileStorage.open(dir);
      const node = new TransitNode({ storage, rootKey, leases: { tickMs: false } });
      await node.start();
      return { storage, node };
    };
    const name = NAMES[2] as string;
    const a = await open();
    const cts = await exercise(a.node.transit, name).finally(async () => {
      await a.node.close();
      await a.storage.close();
    });
    const b = await open();
    try {
      await expectDecrypts(b.node.transit, name, cts);
    } finally {
      await b.node.close();
      await b.storage.close();
    }
  });

  describe.skipIf(SKIP_REDIS)('redis', () => {
    let server: RedisServer | undefined;
    afterAll(async () => {
      await server?.stop('SIGKILL');
    });
    it('redis', async () => {
      if (SKIP_REDIS) console.warn(NO_REDIS_REASON);
      server = await RedisServer.start();
      const storage = await RedisStorage.connect(server.url);
      try {
        await roundTrip(storage);
      } finally {
        await storage.close();
      }
    });
  });
});
