/**
 * The inputs, sinks and baselines of `bench/stream.bench.ts`: the 64 KiB
 * input views (as a web and as a Node readable, pausing every segment so the
 * raw baseline runs beside the stream), a counting drain, the raw AES-256-GCM
 * loops in 16 KiB calls on node:crypto and noble, and the floor and ceiling
 * transforms.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { gcm } from '@noble/ciphers/aes.js';

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;
export const CALL = 16 * 1024;
export const PIECE = 64 * 1024;
export const SOURCE = randomBytes(MiB);

/**
 * CPU time of this process in ms (user + system, all threads). The host is
 * shared, so wall time mostly measures the neighbours; CPU time measures the
 * work, including the garbage collector's.
 */
export const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * `total` bytes of input in 64 KiB pieces (views over one buffer). With
 * `between`, every `segment` bytes the input pauses and calls it (the raw
 * baseline runs there, so each ratio compares two runs a moment apart).
 */
export function input(
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

/** {@link input} as a Node readable (the same 64 KiB views, the same pauses). */
export function nodeInput(
  total: number,
  between: { segment: number; run: (segmentMs: number) => void },
): Readable {
  let sent = 0;
  let mark = between.segment;
  let segmentStart = cpuMs();
  return new Readable({
    highWaterMark: 0,
    read() {
      if (sent >= mark) {
        between.run(cpuMs() - segmentStart);
        mark += between.segment;
        segmentStart = cpuMs();
      }
      if (sent >= total) return void this.push(null);
      const n = Math.min(PIECE, total - sent);
      const at = sent % MiB;
      this.push(SOURCE.subarray(at, at + n));
      sent += n;
    },
  });
}

/** Drain `stream`, counting bytes; `onBytes` sees the running total. */
export async function drain(
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
export function rawNode(total: number, open: boolean): void {
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
export function rawNoble(total: number, open: boolean): void {
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
 * A bare WHATWG transform that seals each 16 KiB of its input with
 * node:crypto (`createCipheriv`, `update`, `final`, `getAuthTag`), with no
 * envelope, key handling, checks or framing: with `output`, the floor of any
 * such stream (one copy of each seal into the piece the reader keeps:
 * node:crypto cannot seal into a caller's buffer, and a stream's pieces
 * belong to its reader); without, the ceiling (nothing is written anywhere;
 * the input pieces pass on unchanged, so what is left is the seals plus the
 * web streams' own cost per piece, which no stream that hands its reader the
 * sealed bytes can beat; plaintext out: a measuring stick only).
 */
function sealingTransform(output: boolean): TransformStream<Uint8Array, Uint8Array> {
  const key = randomBytes(32);
  const iv = Buffer.alloc(12);
  let index = 0;
  const strategy = { highWaterMark: PIECE, size: (c: Uint8Array) => c.byteLength };
  return new TransformStream<Uint8Array, Uint8Array>(
    {
      transform(chunk, controller) {
        const n = Math.ceil(chunk.length / CALL);
        const out = output ? Buffer.allocUnsafeSlow(chunk.length + 16 * n) : undefined;
        for (let off = 0, at = 0; off < chunk.length; off += CALL) {
          iv.writeUInt32BE(index++, 8);
          const c = createCipheriv('aes-256-gcm', key, iv);
          const body = c.update(chunk.subarray(off, off + CALL));
          c.final();
          const tag = c.getAuthTag();
          if (!out) continue;
          out.set(body, at);
          out.set(tag, at + body.length);
          at += body.length + 16;
        }
        controller.enqueue(out ?? chunk);
      },
    },
    strategy,
    strategy,
  );
}

/** The floor of any web stream sealing with node:crypto ({@link sealingTransform}). */
export const floorTransform = (): TransformStream<Uint8Array, Uint8Array> => sealingTransform(true);

/** The ceiling: the same seals, nothing written, input passed on ({@link sealingTransform}). */
export const ceilingTransform = (): TransformStream<Uint8Array, Uint8Array> =>
  sealingTransform(false);
