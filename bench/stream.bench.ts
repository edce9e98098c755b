/**
 * Streaming encryption of large objects (issue 17), as ratios in one run:
 *
 * - node backend: `encryptStream` (and `encryptStream → decryptStream`) over
 *   1 GiB in process, against raw node:crypto AES-256-GCM over the same bytes
 *   in 16 KiB calls (seal; seal then open) — target ≥ 0.85;
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
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { gcm } from '@noble/ciphers/aes.js';
import { nobleBackend, Transit } from 'transitkit';
import { gc, printTable, quick, type Row } from './harness.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const CALL = 16 * 1024;
const PIECE = 64 * 1024;
const SOURCE = randomBytes(MiB);

/**
 * CPU time of this process in ms (user + system, all threads). The host is
 * shared, so wall time mostly measures the neighbours; CPU time measures the
 * work, including the garbage collector's.
 */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * `total` bytes of input in 64 KiB pieces (views over one buffer). With
 * `between`, every `segment` bytes the input pauses and calls it (the raw
 * baseline runs there, so each ratio compares two runs a moment apart).
 */
function input(
  total: number,
  between?: { segment: number; run: (segmentMs: number) => void },
): ReadableStream<Uint8Array> {
  let sent = 0;
  let mark = between?.segment ?? Number.POSITIVE_INFINITY;
  let segmentStart = cpuMs();
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= mark && between) {
          between.run(cpuMs() - segmentStart);
          mark += between.segment;
          segmentStart = cpuMs();
        }
        if (sent >= total) return controller.close();
        const n = Math.min(PIECE, total - sent);
        const at = sent % MiB;
        controller.enqueue(SOURCE.subarray(at, at + n));
        sent += n;
      },
    },
    { highWaterMark: 0 },
  );
}

/** Drain `stream`, counting bytes; `onBytes` sees the running total. */
async function drain(
  stream: ReadableStream<Uint8Array>,
  onBytes?: (n: number) => void,
): Promise<number> {
  let n = 0;
  await stream.pipeTo(
    new WritableStream<Uint8Array>({
      write(c) {
        n += c.length;
        onBytes?.(n);
      },
    }),
  );
  return n;
}

/** Raw AES-256-GCM in 16 KiB calls over node:crypto (one fresh nonce per call). */
function rawNode(total: number, open: boolean): void {
  const key = randomBytes(32);
  const iv = Buffer.alloc(12);
  for (let off = 0, i = 0; off < total; off += CALL, i++) {
    iv.writeUInt32BE(i, 8);
    const at = off % MiB;
    const c = createCipheriv('aes-256-gcm', key, iv);
    const body = c.update(SOURCE.subarray(at, at + CALL));
    c.final();
    const tag = c.getAuthTag();
    if (open) {
      const d = createDecipheriv('aes-256-gcm', key, iv);
      d.setAuthTag(tag);
      d.update(body);
      d.final();
    }
  }
}

/** Raw AES-256-GCM in 16 KiB calls over noble. */
function rawNoble(total: number, open: boolean): void {
  const key = randomBytes(32);
  const iv = new Uint8Array(12);
  for (let off = 0, i = 0; off < total; off += CALL, i++) {
    new DataView(iv.buffer).setUint32(8, i);
    const at = off % MiB;
    const sealed = gcm(key, iv).encrypt(SOURCE.subarray(at, at + CALL));
    if (open) gcm(key, iv).decrypt(sealed);
  }
}

/**
 * The floor of any WHATWG transform that seals with node:crypto: the least
 * such a stream can do — per 16 KiB, `createCipheriv`, `update`, `final`,
 * `getAuthTag`, and one copy into the piece the reader keeps (node:crypto
 * cannot seal into a caller's buffer, and a stream's pieces belong to its
 * reader) — with no envelope, key handling, checks or framing. Measured
 * beside `encryptStream` to show which part of the gap to raw is the
 * stream contract itself.
 */
function floorTransform(): TransformStream<Uint8Array, Uint8Array> {
  const key = randomBytes(32);
  const iv = Buffer.alloc(12);
  let index = 0;
  const strategy = { highWaterMark: PIECE, size: (c: Uint8Array) => c.byteLength };
  return new TransformStream<Uint8Array, Uint8Array>(
    {
      transform(chunk, controller) {
        const n = Math.ceil(chunk.length / CALL);
        const out = Buffer.allocUnsafeSlow(chunk.length + 16 * n);
        for (let off = 0, at = 0; off < chunk.length; off += CALL) {
          iv.writeUInt32BE(index++, 8);
          const c = createCipheriv('aes-256-gcm', key, iv);
          const body = c.update(chunk.subarray(off, off + CALL));
          c.final();
          out.set(body, at);
          out.set(c.getAuthTag(), at + body.length);
          at += body.length + 16;
        }
        controller.enqueue(out);
      },
    },
    strategy,
    strategy,
  );
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * Push `total` bytes through `through` with the raw baseline interleaved every
 * `segment` bytes: per-segment times of both, and their ratios.
 */
async function interleaved(
  total: number,
  segment: number,
  raw: (bytes: number) => void,
  through: (s: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
): Promise<{ streamMs: number[]; rawMs: number[]; ratios: number[] }> {
  const streamMs: number[] = [];
  const rawMs: number[] = [];
  const run = (segmentMs: number) => {
    const t = cpuMs();
    raw(segment);
    rawMs.push(cpuMs() - t);
    streamMs.push(segmentMs);
  };
  await drain(through(input(total, { segment, run })));
  return { streamMs, rawMs, ratios: rawMs.map((r, i) => r / (streamMs[i] as number)) };
}

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
  const floor =
    backend === 'node'
      ? await interleaved(
          total,
          segment,
          (n) => raw(n, false),
          (s) => s.pipeThrough(floorTransform()),
        )
      : undefined;
  await transit.close();
  const mbps = (ms: number[]) => (ms.length * segment) / MiB / (sum(ms) / 1000);
  const size = total >= GiB ? `${total / GiB} GiB` : `${total / MiB} MiB`;
  const group = `stream ${backend}`;
  const rawName = `raw ${backend === 'node' ? 'node:crypto' : 'noble'} AES-256-GCM, 16 KiB calls`;
  const row = (name: string, r: typeof enc, base: string): Row => ({
    group,
    name,
    value: mbps(r.streamMs),
    unit: 'MiB/s',
    ratio: median(r.ratios),
    range: [Math.min(...r.ratios), Math.max(...r.ratios)],
    baseline: base,
    target: { min: 0.85 },
  });
  return [
    { group, name: `${rawName}: seal`, value: mbps(enc.rawMs), unit: 'MiB/s' },
    row(`encryptStream, ${size}`, enc, 'raw seal'),
    ...(floor
      ? [
          {
            group,
            name: `floor: bare TransformStream sealing 16 KiB chunks, ${size}`,
            value: mbps(floor.streamMs),
            unit: 'MiB/s',
            ratio: median(floor.ratios),
            range: [Math.min(...floor.ratios), Math.max(...floor.ratios)] as [number, number],
            baseline: 'raw seal',
          },
        ]
      : []),
    { group, name: `${rawName}: seal + open`, value: mbps(rt.rawMs), unit: 'MiB/s' },
    row(`encryptStream → decryptStream, ${size}`, rt, 'raw seal + open'),
  ];
}

/** RSS growth while `total` bytes go through encryptStream → decryptStream. */
async function memory(total: number): Promise<Row[]> {
  const transit = new Transit({ crypto: 'node' });
  await transit.createKey('bench');
  gc();
  const before = process.memoryUsage().rss;
  let peak = before;
  let next = 0;
  const n = await drain(
    input(total)
      .pipeThrough(transit.encryptStream('bench'))
      .pipeThrough(transit.decryptStream('bench')),
    (seen) => {
      if (seen >= next) {
        next += 16 * MiB;
        peak = Math.max(peak, process.memoryUsage().rss);
      }
    },
  );
  await transit.close();
  if (n !== total) throw new Error(`memory run: ${n} bytes out of ${total}`);
  const growth = (peak - before) / MiB;
  const size = total >= GiB ? `${total / GiB} GiB` : `${total / MiB} MiB`;
  return [
    {
      group: 'stream memory',
      name: `RSS growth, ${size} through encrypt → decrypt (limit 64 MiB)`,
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
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  printTable(await streamBench());
}
