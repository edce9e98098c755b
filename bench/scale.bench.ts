/**
 * Scale (issue 8, §5 and §7), in one MemoryStorage-backed engine:
 *
 * - 100,000 keys (10,000 with `--quick`): create rate, listKeys page of 100
 *   from the middle, and encrypt/readKey latency on random keys with the
 *   cache on (unbounded, all keys parsed) and off (size 10: every call misses
 *   and parses the stored document) — each against the same figure with
 *   1,000 keys, since none of them may grow with the number of keys;
 * - memory: resident bytes (heap + external) per cached key, and the growth
 *   after touching every key with `cache-config` size 1,000, which must stay
 *   bounded (a small fraction of the unbounded growth);
 * - one hot key with the cache bounded and full, 100,000 keys against 1,000
 *   (a hit must not grow with the cache either);
 * - then one key with 1,000 versions against one with 10 (versions.bench.ts).
 *
 * Correctness first: ciphertexts made on random keys decrypt, pages are the
 * expected names.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { PerformanceObserver } from 'node:perf_hooks';
import { Transit } from 'transitkit';
import { breathe, gc, latencyUs, quick, type Row, versus } from './harness.js';
import { upperMedian } from './stats.js';
import { versionsBench } from './versions.bench.js';

const BIG = quick ? 10_000 : 100_000;
const SMALL = 1_000;
const CACHE = 1_000;
const SAMPLES = quick ? 500 : 5_000;
const ROUNDS = quick ? 1 : 6;
const PLAINTEXT = randomBytes(64).toString('base64');
const FLAT = { max: 1.5 };

const keyName = (i: number) => `k-${String(i).padStart(6, '0')}`;
const kilo = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
const resident = () => {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};

/** Create `n` keys; returns keys/s overall and for the last 1,000. */
async function createKeys(t: Transit, n: number): Promise<{ all: number; last: number }> {
  const start = performance.now();
  let lastStart = start;
  for (let i = 0; i < n; i++) {
    if (i === n - 1000) lastStart = performance.now();
    await t.createKey(keyName(i));
    if (i % 10_000 === 9_999) await breathe();
  }
  const end = performance.now();
  return { all: (n * 1000) / (end - start), last: (1000 * 1000) / (end - lastStart) };
}

type Op = 'encrypt' | 'readKey' | 'listKeys';
const OPS: Op[] = ['encrypt', 'readKey', 'listKeys'];

/** One op on a store of `n` keys: random keys; a page of 100 from the middle. */
function runner(t: Transit, n: number) {
  const pick = Array.from({ length: SAMPLES }, () => keyName(Math.floor(Math.random() * n)));
  const middle = keyName(n / 2);
  const calls: Record<Op, (i: number) => Promise<unknown>> = {
    encrypt: (i) => t.encrypt(pick[i % SAMPLES] as string, { plaintext: PLAINTEXT }),
    readKey: (i) => t.readKey(pick[i % SAMPLES] as string),
    listKeys: () => t.listKeys({ after: middle, limit: 100 }),
  };
  const check = async () => {
    const { ciphertext } = await t.encrypt(pick[0] as string, { plaintext: PLAINTEXT });
    const back = await t.decrypt(pick[0] as string, { ciphertext });
    if (back.plaintext !== PLAINTEXT) throw new Error('scale: round trip mismatch');
    const page = await t.listKeys({ after: middle, limit: 100 });
    if (page.keys.length !== 100 || page.keys[0] !== keyName(n / 2 + 1)) {
      throw new Error('scale: wrong listKeys page');
    }
  };
  return { calls, check };
}

/** Garbage-collection pauses seen so far (start and duration, ms). */
const pauses: { start: number; ms: number }[] = [];
let observer: PerformanceObserver | undefined;

/**
 * `latencyUs` of `per` calls, and the GC pause time (µs per call) that fell
 * inside them: with 100,000 stored documents in the heap, collections cost
 * more, which is part of what a cold key costs at scale (issue 18).
 */
async function timedWithGc(
  per: number,
  fn: (i: number) => Promise<unknown>,
): Promise<{ us: number; gcUs: number }> {
  if (!observer) {
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) pauses.push({ start: e.startTime, ms: e.duration });
    });
    observer.observe({ entryTypes: ['gc'] });
  }
  const from = performance.now();
  const us = await latencyUs(per, fn);
  const to = performance.now();
  await new Promise((r) => setTimeout(r, 0)); // let the observer hear the last pauses
  let ms = 0;
  for (const p of pauses.splice(0)) if (p.start >= from && p.start <= to) ms += p.ms;
  return { us, gcUs: (ms * 1000) / per };
}

/**
 * {@link ROUNDS} rounds of `measure` on the small side and the big one, as
 * `[small, big]` pairs. Each round starts from a full collection: the memory
 * rows leave 100,000 parsed keys to collect, and a collection (or its
 * concurrent marking, on a 2-core machine) inside one side's window says
 * nothing about a key lookup. The sides alternate which goes first after it
 * (its sweeping falls on both alike).
 */
async function alternating<T>(measure: (big: boolean) => Promise<T>): Promise<[T, T][]> {
  const out: [T, T][] = [];
  for (let r = 0; r < ROUNDS; r++) {
    gc();
    const first = await measure(r % 2 === 1);
    const second = await measure(r % 2 === 0);
    out.push(r % 2 ? [second, first] : [first, second]);
  }
  return out;
}

/**
 * Latencies (µs) of the big store against the small one, measured in
 * alternating rounds (as the harness does for rates), each ratio within a
 * round; a full collection first, since a bulk load leaves one due.
 */
async function paired(small: Transit, big: Transit, G: string, label: string): Promise<Row[]> {
  const a = runner(small, SMALL);
  const b = runner(big, BIG);
  await a.check();
  await b.check();
  gc();
  for (let i = 0; i < 1000; i++) {
    await a.calls.encrypt(i);
    await b.calls.encrypt(i);
  }
  const rows: Row[] = [];
  for (const op of OPS) {
    // 2,000 calls a side (a few ms): at 500 one collection step inside a window moved a
    // round's ratio by 10×.
    const per = quick ? 100 : 2000;
    const mine: number[] = [];
    const ratios: number[] = [];
    const gcSmall: number[] = [];
    const gcBig: number[] = [];
    const withoutGc: number[] = [];
    for (const [x, y] of await alternating((big) => timedWithGc(per, (big ? b : a).calls[op]))) {
      mine.push(y.us);
      ratios.push(y.us / x.us);
      gcSmall.push(x.gcUs);
      gcBig.push(y.gcUs);
      withoutGc.push((y.us - y.gcUs) / Math.max(x.us - x.gcUs, 1e-9));
    }
    rows.push({
      group: G,
      name: `${op}, ${kilo(BIG)} keys, ${label}`,
      value: upperMedian(mine),
      unit: 'µs',
      ratio: upperMedian(ratios),
      range: [Math.min(...ratios), Math.max(...ratios)],
      baseline: `${kilo(SMALL)} keys, ${label}`,
      target: FLAT,
    });
    if (op === 'encrypt') {
      rows.push({
        group: G,
        name: `  of which GC pauses, ${kilo(BIG)} keys, ${label}`,
        value: upperMedian(gcBig),
        unit: 'µs',
        baseline: `${kilo(SMALL)} keys: ${upperMedian(gcSmall).toFixed(1)} µs`,
      });
      rows.push({
        group: G,
        name: `  encrypt without GC pauses, ${kilo(BIG)} keys, ${label}`,
        value: upperMedian(mine) - upperMedian(gcBig),
        unit: 'µs',
        ratio: upperMedian(withoutGc),
        range: [Math.min(...withoutGc), Math.max(...withoutGc)],
        baseline: `${kilo(SMALL)} keys, the same`,
      });
    }
  }
  return rows;
}

/**
 * One hot key with a bounded cache that is full: `BIG` of `BIG` keys cached
 * against `SMALL` of `SMALL`. Every hit marks the key used; an LRU that did
 * so by re-inserting into a `Map` grew with the cache's size (V8 keeps the
 * deleted entries in the key's bucket chain: src/util/linked-map.ts), 4× at
 * 10,000 keys and 6× at 100,000 before.
 */
async function hotKey(small: Transit, big: Transit, G: string): Promise<Row> {
  await small.writeCacheConfig({ size: SMALL });
  await big.writeCacheConfig({ size: BIG });
  for (const [t, n] of [
    [small, SMALL],
    [big, BIG],
  ] as const) {
    for (let i = 0; i < n; i++) await t.readKey(keyName(i)); // full, whatever ran before
  }
  const hot = keyName(5);
  const call = (t: Transit) => () => t.encrypt(hot, { plaintext: PLAINTEXT });
  const per = quick ? 100 : 5000;
  const rounds = await alternating((isBig) => latencyUs(per, call(isBig ? big : small)));
  const mine = rounds.map(([, y]) => y);
  const ratios = rounds.map(([x, y]) => y / x);
  return {
    group: G,
    name: `encrypt one hot key, ${kilo(BIG)} of ${kilo(BIG)} cached`,
    value: upperMedian(mine),
    unit: 'µs',
    ratio: upperMedian(ratios),
    range: [Math.min(...ratios), Math.max(...ratios)],
    baseline: `${kilo(SMALL)} of ${kilo(SMALL)} cached`,
    target: FLAT,
  };
}

/** Keys: create, list, latency with the cache on and off, memory per cached key. */
async function keysBench(): Promise<Row[]> {
  const G = 'scale: keys';
  const small = new Transit({ autoRotate: false });
  const smallCreate = await createKeys(small, SMALL);
  // The big store starts with a bounded cache, so creating keys does not fill memory.
  const big = new Transit({ autoRotate: false, cacheSize: CACHE });
  const bigCreate = await createKeys(big, BIG);
  const beforeTouch = resident();
  for (let i = 0; i < BIG; i++) await big.readKey(keyName(i));
  const bounded = resident() - beforeTouch;
  await big.writeCacheConfig({ size: 0 });
  const beforeAll = resident();
  for (let i = 0; i < BIG; i++) await big.readKey(keyName(i));
  const unbounded = resident() - beforeAll;
  const perKey = unbounded / (BIG - CACHE);
  const cacheOn = await paired(small, big, G, 'cache on');
  const hot = await hotKey(small, big, G);
  await small.writeCacheConfig({ size: 10 });
  await big.writeCacheConfig({ size: 10 });
  const cacheOff = await paired(small, big, G, 'cache off (size 10)');
  await small.close();
  await big.close();
  const N = kilo(BIG);
  return [
    versus(G, `create, ${N} keys`, bigCreate.all, 'keys/s', {
      name: `create, ${kilo(SMALL)} keys`,
      value: smallCreate.all,
    }),
    versus(
      G,
      `create, last 1k of ${N}`,
      bigCreate.last,
      'keys/s',
      { name: `create, first ${kilo(SMALL)}`, value: smallCreate.all },
      { min: 0.67 },
    ),
    ...cacheOn,
    hot,
    ...cacheOff.filter((r) => !r.name.startsWith('listKeys')),
    { group: 'memory', name: 'bytes per cached key', value: perKey, unit: 'B' },
    versus(
      'memory',
      `growth touching ${N} keys, cache ${kilo(CACHE)}`,
      bounded / 1e6,
      'MB',
      { name: 'growth with cache unbounded', value: unbounded / 1e6 },
      { max: 0.05 },
    ),
  ];
}

export async function scaleBench(): Promise<Row[]> {
  try {
    return [...(await keysBench()), ...(await versionsBench())];
  } finally {
    observer?.disconnect();
    observer = undefined;
  }
}
