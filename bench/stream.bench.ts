/**
 * Streaming encryption of large objects (issue 17), as ratios in one run:
 *
 * - node backend: `encryptStream` (and `encryptStream → decryptStream`) over
 *   1 GiB in process, against raw node:crypto AES-256-GCM over the same bytes
 *   in 16 KiB calls (seal; seal then open) — target ≥ 0.85; beside them the
 *   floor (a bare web stream that seals) and the ceiling (one that seals but
 *   passes its input on, writing nothing) of any web stream over node:crypto;
 * - noble backend: the same against raw noble `gcm` in 16 KiB calls, over
 *   64 MiB (noble runs at a fraction of AES-NI speed; the ratio is what counts);
 * - memory: RSS growth while 4 GiB go through `encryptStream → decryptStream`
 *   (target < 64 MiB), sampled every 16 MiB.
 *
 * Timing: the raw baseline runs inside the stream's own run, every segment
 * (32 MiB node, 4 MiB noble), and each ratio is the median of the
 * per-segment ratios, so both sides of a ratio see the same machine state.
 * Time is the process's CPU time (`process.cpuUsage`), not wall time: on a
 * shared host wall time mostly measures the neighbours.
 *
 * `npm run bench:stream` runs the full sizes above alone; the `stream`
 * section of `npm run bench` runs 256 MiB / 16 MiB / 1 GiB, and with
 * `--quick` (CI) 32 MiB / 4 MiB / 128 MiB. Correctness first: a 1 MiB round
 * trip through the streams on each backend, checked byte for byte, and the
 * envelope opened by random access, before anything is timed.
 *
 * Input is a ReadableStream of 64 KiB views over one random 1 MiB buffer (no
 * allocation on the input side); output goes to a sink that counts bytes.
 * The Node-stream rows run the same through `toNodeStream`
 * (`transitkit/stream/node`) in a `pipeline()`, from a Node readable of the
 * same views into a counting Writable.
 * @module
 */
import { type Duplex, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { nobleBackend, Transit } from 'transitkit';
import { toNodeStream } from 'transitkit/stream/node';
import { gc, printTable, quick, type Row } from './harness.js';
import { upperMedian } from './stats.js';
import {
  ceilingTransform,
  cpuMs,
  drain,
  floorTransform,
  GiB,
  input,
  MiB,
  nodeInput,
  rawNoble,
  rawNode,
  SOURCE,
} from './stream-baselines.js';

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

type Timed = { streamMs: number[]; rawMs: number[]; ratios: number[] };

/**
 * Run `drive` with a hook that the input calls every `segment` bytes: the
 * raw baseline runs there, and each segment's stream time and raw time are
 * kept side by side.
 */
async function timedSegments(
  segment: number,
  raw: (bytes: number) => void,
  drive: (run: (segmentMs: number) => void) => Promise<void>,
): Promise<Timed> {
  const streamMs: number[] = [];
  const rawMs: number[] = [];
  await drive((segmentMs) => {
    const t = cpuMs();
    raw(segment);
    rawMs.push(cpuMs() - t);
    streamMs.push(segmentMs);
  });
  return { streamMs, rawMs, ratios: rawMs.map((r, i) => r / (streamMs[i] as number)) };
}

/**
 * Push `total` bytes through `through` with the raw baseline interleaved every
 * `segment` bytes: per-segment times of both, and their ratios.
 */
const interleaved = (
  total: number,
  segment: number,
  raw: (bytes: number) => void,
  through: (s: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
): Promise<Timed> =>
  timedSegments(segment, raw, async (run) => {
    await drain(through(input(total, { segment, run })));
  });

/** {@link interleaved} for a Node pipeline of `stages` (toNodeStream). */
const interleavedNode = (
  total: number,
  segment: number,
  raw: (bytes: number) => void,
  stages: () => Duplex[],
): Promise<Timed> =>
  timedSegments(segment, raw, async (run) => {
    let n = 0;
    const sink = new Writable({
      write(c: Buffer, _e, cb) {
        n += c.length;
        cb();
      },
    });
    await pipeline([nodeInput(total, { segment, run }), ...stages(), sink]);
    if (n === 0) throw new Error('node pipeline: no output');
  });

/** Correctness before timing: a round trip byte for byte, and random access. */
async function check(transit: Transit): Promise<void> {
  const plain = SOURCE.subarray(0, MiB - 5);
  const ct = new Uint8Array(
    await new Response(
      new Blob([plain]).stream().pipeThrough(transit.encryptStream('bench')),
    ).arrayBuffer(),
  );
  const back = new Uint8Array(
    await new Response(
      new Blob([ct]).stream().pipeThrough(transit.decryptStream('bench')),
    ).arrayBuffer(),
  );
  if (back.length !== plain.length || !back.every((b, i) => b === plain[i])) {
    throw new Error(`${transit.backendName}: stream round trip differs`);
  }
  const obj = await transit.openEncrypted('bench', new Blob([ct]));
  const mid = await obj.read(300_000, 40_000);
  if (!mid.every((b, i) => b === plain[300_000 + i])) throw new Error('random access differs');
}

/** Throughput rows of one backend: encrypt and round trip against the raw primitive. */
export async function throughput(
  backend: 'node' | 'noble',
  total: number,
  segment: number,
): Promise<Row[]> {
  const transit = new Transit({ crypto: backend === 'node' ? 'node' : nobleBackend });
  await transit.createKey('bench');
  await check(transit);
  const raw = backend === 'node' ? rawNode : rawNoble;
  const encrypt = (s: ReadableStream<Uint8Array>) => s.pipeThrough(transit.encryptStream('bench'));
  const both = (s: ReadableStream<Uint8Array>) =>
    encrypt(s).pipeThrough(transit.decryptStream('bench'));
  // Warm-up (JIT, allocator) of both sides before anything is timed.
  await interleaved(Math.min(total, 8 * segment), segment, (n) => raw(n, true), both);
  const enc = await interleaved(total, segment, (n) => raw(n, false), encrypt);
  const rt = await interleaved(total, segment, (n) => raw(n, true), both);
  // The same through Node streams (toNodeStream of transitkit/stream/node).
  const nodeEnc = () => [toNodeStream(transit.encryptStream('bench'))];
  const nodeBoth = () => [...nodeEnc(), toNodeStream(transit.decryptStream('bench'))];
  await interleavedNode(Math.min(total, 8 * segment), segment, (n) => raw(n, true), nodeBoth);
  const nodeRows = {
    enc: await interleavedNode(total, segment, (n) => raw(n, false), nodeEnc),
    rt: await interleavedNode(total, segment, (n) => raw(n, true), nodeBoth),
  };
  const bound = (make: () => TransformStream<Uint8Array, Uint8Array>) =>
    backend === 'node'
      ? interleaved(
          total,
          segment,
          (n) => raw(n, false),
          (s) => s.pipeThrough(make()),
        )
      : undefined;
  const floor = await bound(floorTransform);
  const ceiling = await bound(ceilingTransform);
  await transit.close();
  const mbps = (ms: number[]) => (ms.length * segment) / MiB / (sum(ms) / 1000);
  const size = total >= GiB ? `${total / GiB} GiB` : `${total / MiB} MiB`;
  const group = `stream ${backend}`;
  const rawName = `raw ${backend === 'node' ? 'node:crypto' : 'noble'} AES-256-GCM, 16 KiB calls`;
  const row = (name: string, r: Timed, base: string): Row => ({
    group,
    name,
    value: mbps(r.streamMs),
    unit: 'MiB/s',
    ratio: upperMedian(r.ratios),
    range: [Math.min(...r.ratios), Math.max(...r.ratios)],
    baseline: base,
    target: { min: 0.85 },
  });
  // The floor and the ceiling have no target: they measure the platform.
  const bare = (name: string, r: Timed): Row => ({
    ...row(name, r, 'raw seal'),
    target: undefined,
  });
  return [
    { group, name: `${rawName}: seal`, value: mbps(enc.rawMs), unit: 'MiB/s' },
    row(`encryptStream, ${size}`, enc, 'raw seal'),
    ...(floor ? [bare(`floor: bare TransformStream sealing 16 KiB chunks, ${size}`, floor)] : []),
    ...(ceiling
      ? [
          bare(
            `ceiling: the same seals, output dropped, input passed on (web streams alone), ${size}`,
            ceiling,
          ),
        ]
      : []),
    { group, name: `${rawName}: seal + open`, value: mbps(rt.rawMs), unit: 'MiB/s' },
    row(`encryptStream → decryptStream, ${size}`, rt, 'raw seal + open'),
    row(`Node streams (toNodeStream): encrypt, ${size}`, nodeRows.enc, 'raw seal'),
    row(`Node streams (toNodeStream): encrypt → decrypt, ${size}`, nodeRows.rt, 'raw seal + open'),
  ];
}

/**
 * RSS growth while `total` bytes go through encrypt → decrypt: the web
 * streams, or (`node`) the same as Node streams through `toNodeStream`.
 */
async function memory(total: number, node = false): Promise<Row[]> {
  const transit = new Transit({ crypto: 'node' });
  await transit.createKey('bench');
  gc();
  const before = process.memoryUsage().rss;
  let peak = before;
  let next = 0;
  const onBytes = (seen: number) => {
    if (seen >= next) {
      next += 16 * MiB;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  };
  let n = 0;
  if (node) {
    await pipeline(
      nodeInput(total, { segment: Number.POSITIVE_INFINITY, run: () => undefined }),
      toNodeStream(transit.encryptStream('bench')),
      toNodeStream(transit.decryptStream('bench')),
      new Writable({
        write(c: Buffer, _e, cb) {
          n += c.length;
          onBytes(n);
          cb();
        },
      }),
    );
  } else {
    n = await drain(
      input(total)
        .pipeThrough(transit.encryptStream('bench'))
        .pipeThrough(transit.decryptStream('bench')),
      onBytes,
    );
  }
  await transit.close();
  if (n !== total) throw new Error(`memory run: ${n} bytes out of ${total}`);
  const growth = (peak - before) / MiB;
  const size = total >= GiB ? `${total / GiB} GiB` : `${total / MiB} MiB`;
  const how = node ? 'Node streams' : 'web streams';
  return [
    {
      group: 'stream memory',
      name: `RSS growth, ${size} through encrypt → decrypt, ${how} (limit 64 MiB)`,
      value: growth,
      unit: 'MiB',
      ratio: growth / 64,
      baseline: '64 MiB',
      target: { max: 1 },
    },
  ];
}

/**
 * Every section. `full` (`npm run bench:stream`): 1 GiB node, 64 MiB noble,
 * 4 GiB memory; `medium` (the section of `npm run bench`): 256 MiB, 16 MiB,
 * 1 GiB; `quick` (CI): 32 MiB, 4 MiB, 128 MiB.
 */
export async function streamBench(
  size: 'quick' | 'medium' | 'full' = quick ? 'quick' : 'full',
): Promise<Row[]> {
  const s = {
    quick: { node: 32 * MiB, noble: 4 * MiB, memory: 128 * MiB, seg: 4 * MiB },
    medium: { node: 256 * MiB, noble: 16 * MiB, memory: GiB, seg: 16 * MiB },
    full: { node: GiB, noble: 64 * MiB, memory: 4 * GiB, seg: 32 * MiB },
  }[size];
  return [
    ...(await throughput('node', s.node, s.seg)),
    ...(await throughput('noble', s.noble, s.seg / 8)),
    ...(await memory(s.memory)),
    ...(await memory(s.memory, true)),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printTable(await streamBench());
}
