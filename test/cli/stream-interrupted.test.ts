/**
 * `transitkit encrypt|decrypt` (adapters/cli/stream-command.ts), as real
 * processes against a real `transitkit server --dev`: a run interrupted by
 * SIGINT takes its temporary `--out` file back (it left a hidden file of
 * plaintext), and an `--in` file that shrinks while it is read fails at once
 * (the server waited for the missing bytes for five minutes).
 */
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServer, call, startDev } from '../http/helpers.js';
import { bytes } from '../http/stream-support.js';
import { ended, spawnCli } from './stream-support.js';

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: CliServer;
let dir: string;
let addr: string[];
beforeAll(async () => {
  server = await startDev();
  addr = ['--addr', server.url, '--token', server.root];
  expect((await call(server, 'POST', '/v1/transit/keys/k', { body: {} })).status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'transitkit-stream-interrupted-'));
}, 30_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('transitkit decrypt/encrypt --out / --in', () => {
  it('an interrupted decrypt --out (Ctrl-C) leaves no hidden temporary file of plaintext', async () => {
    const enc = spawnCli(['encrypt', '--key', 'k', ...addr]);
    const encEnded = ended(enc, 60_000);
    enc.stdin?.end(bytes(40 * MiB));
    const envelope = (await encEnded).stdout;
    expect(envelope.subarray(0, 4).toString()).toBe('TKS1');

    const sub = mkdtempSync(join(dir, 'sigint-'));
    const p = spawnCli(['decrypt', '--key', 'k', ...addr, '--out', join(sub, 'plain.bin')]);
    const done = ended(p, 20_000);
    // Half the envelope, then wait: the temporary file fills with authenticated plaintext.
    p.stdin?.write(envelope.subarray(0, 10 * MiB));
    for (let i = 0; i < 200; i++) {
      await sleep(50);
      const names = readdirSync(sub);
      if (names.length > 0 && statSync(join(sub, names[0] as string)).size > MiB) break;
    }
    p.kill('SIGINT'); // the user presses Ctrl-C
    const r = await done;
    expect(r.hung).toBe(false);
    const left = readdirSync(sub).map((n) => `${n} (${statSync(join(sub, n)).size} bytes)`);
    // "a partial --out file is never left behind" (STREAM_USAGE)
    expect(left).toEqual([]);
  }, 90_000);

  it('an --in file that shrinks while it is read fails promptly (no hang)', async () => {
    const sub = mkdtempSync(join(dir, 'shrink-'));
    const input = join(sub, 'in.bin');
    writeFileSync(input, bytes(8 * MiB));
    // --out is a FIFO: the CLI opens it (and so waits) after it has stat'ed --in,
    // which makes the window between the stat and the read deterministic.
    const fifo = join(sub, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const p = spawnCli(['encrypt', '--key', 'k', ...addr, '--in', input, '--out', fifo]);
    const done = ended(p, 20_000);
    await sleep(2500); // CLI started, stat'ed 8 MiB, now blocked opening the FIFO
    truncateSync(input, 4 * MiB); // e.g. a log rotated with copytruncate
    const reader = createReadStream(fifo);
    let got = 0;
    reader.on('data', (d) => {
      got += (d as Buffer).length;
    });
    reader.on('error', () => {});
    const r = await done;
    reader.destroy();
    // It should fail at once (the input ended 4 MiB short of the length it declared).
    expect({ hung: r.hung, code: r.code, gotSome: got > 0 }).toEqual({
      hung: false,
      code: 1,
      gotSome: true,
    });
  }, 60_000);
});
