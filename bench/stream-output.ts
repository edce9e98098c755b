/**
 * Why a web stream that hands its reader the sealed bytes stays below the raw
 * seal (issue 17's in-process row): the cost of writing each output byte into
 * fresh memory. Seals 16 KiB chunks with node:crypto (`createCipheriv`,
 * `update`, `final`, `getAuthTag`, a fresh GCM context each, as the raw
 * baseline of stream.bench.ts) and, per case, puts the ciphertext and tag:
 *
 * - `raw`: nowhere (the baseline: node:crypto's own output, dropped);
 * - `fresh 64 KiB`: into a fresh 65,600-byte piece per 4 chunks (what
 *   `encryptStream` hands its reader for a 64 KiB write);
 * - `reused 64 KiB`: into one piece used again and again (not possible for a
 *   stream whose reader keeps its pieces: the copy alone);
 * - `fresh 1 MiB slab`: into views of a fresh 1 MiB buffer;
 * - `fresh per chunk`: into a fresh 16,400-byte piece per chunk.
 *
 * Cases alternate in rounds of 16 MiB; each figure is the median over the
 * rounds of MiB/s in CPU time, and its ratio to `raw`. No stream machinery:
 * this isolates the memory.
 *
 * `TSX_TSCONFIG_PATH=bench/tsconfig.json npx tsx bench/stream-output.ts [--rounds=N]`
 * (≈ 30 s at 40 rounds).
 * @module
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { upperMedian } from './stats.js';

const MiB = 1 << 20;
const CALL = 16 * 1024;
const WIRE = CALL + 16;
const ROUND = 16 * MiB;
const ROUNDS = Number(/^--rounds=(\d+)$/.exec(process.argv[2] ?? '')?.[1] ?? 40);
const SOURCE = randomBytes(MiB);
const KEY = randomBytes(32);
const iv = Buffer.alloc(12);

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Seal chunk `i` (a view of SOURCE at `at`); returns ciphertext and tag. */
function seal(i: number, at: number): [Buffer, Buffer] {
  iv.writeUInt32BE(i >>> 0, 8);
  const c = createCipheriv('aes-256-gcm', KEY, iv);
  const body = c.update(SOURCE.subarray(at, at + CALL));
  c.final();
  return [body, c.getAuthTag()];
}

/** Seal `total` bytes, 4 chunks at a time, into the piece `piece()` gives (or nowhere). */
function sealInto(total: number, piece: (() => Uint8Array) | undefined): number {
  let kept = 0;
  for (let off = 0, i = 0; off < total; off += 4 * CALL) {
    const out = piece?.();
    for (let k = 0; k < 4; k++, i++) {
      const [body, tag] = seal(i, (off + k * CALL) % MiB);
      if (out === undefined) continue;
      out.set(body, k * WIRE);
      out.set(tag, k * WIRE + CALL);
    }
    kept += out?.length ?? 0;
  }
  return kept;
}

const reused = Buffer.allocUnsafeSlow(4 * WIRE);
let slab = Buffer.allocUnsafeSlow(MiB);
let slabAt = 0;
const CASES: Record<string, (total: number) => number> = {
  raw: (total) => sealInto(total, undefined),
  'fresh 64 KiB': (total) => sealInto(total, () => Buffer.allocUnsafeSlow(4 * WIRE)),
  'reused 64 KiB': (total) => sealInto(total, () => reused),
  'fresh 1 MiB slab': (total) =>
    sealInto(total, () => {
      if (slabAt + 4 * WIRE > slab.length) {
        slab = Buffer.allocUnsafeSlow(MiB);
        slabAt = 0;
      }
      slabAt += 4 * WIRE;
      return slab.subarray(slabAt - 4 * WIRE, slabAt);
    }),
  'fresh per chunk': (total) => {
    let kept = 0;
    for (let off = 0, i = 0; off < total; off += CALL, i++) {
      const out = Buffer.allocUnsafeSlow(WIRE);
      const [body, tag] = seal(i, off % MiB);
      out.set(body, 0);
      out.set(tag, CALL);
      kept += out.length;
    }
    return kept;
  },
};

const rates: Record<string, number[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, run] of Object.entries(CASES)) {
    const start = cpuMs();
    run(ROUND);
    const rate = ROUND / MiB / ((cpuMs() - start) / 1000);
    rates[name] = [...(rates[name] ?? []), rate];
  }
}
const base = upperMedian(rates.raw as number[]);
console.log(`stream output memory — node ${process.version}, ${ROUNDS} rounds of 16 MiB, CPU time`);
for (const [name, xs] of Object.entries(rates)) {
  const m = upperMedian(xs);
  console.log(`${name.padEnd(18)} ${m.toFixed(0).padStart(6)} MiB/s  ${(m / base).toFixed(2)}`);
}
