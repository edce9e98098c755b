/**
 * Cold start (issue 8, §6): open a `FileStorage` directory holding 10,000
 * keys (2,000 with `--quick`), build a `Transit` on it and serve the first
 * encrypt, against the same with 100 keys. Open and first encrypt are timed
 * apart: `FileStorage.open` indexes the directory with one `readdir` (O(keys)
 * by design, see adapters/file/file-storage.ts), while the first encrypt
 * must not depend on the number of keys.
 *
 * The fixture directories are written once: keys are created through the
 * engine on MemoryStorage and its entries copied to files with the file
 * adapter's own naming (no fsync: durability is not what is measured).
 * Each figure is the median of alternating trials, each after a full
 * collection; the first encrypt's ciphertext is checked to decrypt.
 * @module
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage, Transit } from 'transitkit';
import { FileStorage } from 'transitkit/adapters/file';
import { fileNameFor } from '../adapters/file/key-codec.js';
import { gc, quick, type Row, versus } from './harness.js';
import { upperMedian } from './stats.js';

const MANY = quick ? 2_000 : 10_000;
const FEW = 100;
const TRIALS = quick ? 3 : 11;
const PLAINTEXT = Buffer.from('cold start').toString('base64');

const keyName = (i: number) => `k-${String(i).padStart(6, '0')}`;

/** A directory in FileStorage's layout with `n` keys. */
async function fixture(n: number): Promise<string> {
  const mem = new MemoryStorage();
  const t = new Transit({ storage: mem, autoRotate: false, cacheSize: 10 });
  for (let i = 0; i < n; i++) await t.createKey(keyName(i));
  await t.close();
  const dir = await mkdtemp(join(tmpdir(), `transitkit-cold-${n}-`));
  let after: string | undefined;
  for (;;) {
    const page = await mem.list('', { after, limit: 1000 });
    if (page.length === 0) break;
    for (const k of page) {
      const v = await mem.get(k);
      if (v) await writeFile(join(dir, fileNameFor(k)), v);
    }
    after = page[page.length - 1];
  }
  return dir;
}

/** One cold start: open, engine, first encrypt (ms each). */
async function trial(dir: string, n: number): Promise<{ open: number; first: number }> {
  // A fresh process starts with a small heap: collect what earlier sections
  // left, so that their garbage is not charged to this start.
  gc();
  const t0 = performance.now();
  const storage = await FileStorage.open(dir);
  const t1 = performance.now();
  const t = new Transit({ storage, autoRotate: false });
  const name = keyName(Math.floor(n / 2));
  const { ciphertext } = await t.encrypt(name, { plaintext: PLAINTEXT });
  const t2 = performance.now();
  if ((await t.decrypt(name, { ciphertext })).plaintext !== PLAINTEXT) {
    throw new Error('cold start: round trip mismatch');
  }
  await t.close();
  await storage.close();
  return { open: t1 - t0, first: t2 - t1 };
}

export async function coldStartBench(): Promise<Row[]> {
  const few = await fixture(FEW);
  const many = await fixture(MANY);
  try {
    await trial(few, FEW); // warm the code paths, not the data
    const r = {
      few: { open: [] as number[], first: [] as number[] },
      many: { open: [] as number[], first: [] as number[] },
    };
    for (let i = 0; i < TRIALS; i++) {
      for (const [k, dir, n] of [
        ['few', few, FEW],
        ['many', many, MANY],
      ] as const) {
        const x = await trial(dir, n);
        r[k].open.push(x.open);
        r[k].first.push(x.first);
      }
    }
    const G = 'cold start (file)';
    const M = MANY.toLocaleString('en-US');
    return [
      versus(G, `open, ${M} keys`, upperMedian(r.many.open), 'ms', {
        name: `${FEW} keys`,
        value: upperMedian(r.few.open),
      }),
      versus(
        G,
        `first encrypt, ${M} keys`,
        upperMedian(r.many.first),
        'ms',
        {
          name: `${FEW} keys`,
          value: upperMedian(r.few.first),
        },
        { max: 1.5 },
      ),
      versus(
        G,
        `open + first encrypt, ${M} keys`,
        upperMedian(r.many.open) + upperMedian(r.many.first),
        'ms',
        {
          name: `${FEW} keys`,
          value: upperMedian(r.few.open) + upperMedian(r.few.first),
        },
      ),
    ];
  } finally {
    await rm(few, { recursive: true, force: true });
    await rm(many, { recursive: true, force: true });
  }
}
