/**
 * `transitkit encrypt` and `transitkit decrypt` as real processes against a
 * real `transitkit server --dev` process: stdin → stdout pipes, `--in` /
 * `--out` files, VAULT_ADDR / VAULT_TOKEN, derived-key context; failures
 * exit 1 with one clear line that never shows the token, and leave no
 * output file (nor temporary file) behind; usage errors exit 2. The
 * progress line's formatting, and that it shows only on a terminal.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpText, parseArgs, UsageError } from '../../adapters/cli/args.js';
import {
  formatBytes,
  formatProgress,
  PROGRESS_MIN_BYTES,
  runStreamCommand,
  showsProgress,
} from '../../adapters/cli/stream-command.js';
import { type CliServer, call, startDev } from '../http/helpers.js';
import { bytes, generated, sha256 } from '../http/stream-support.js';
import { cli } from './stream-support.js';

const MiB = 1024 * 1024;

let server: CliServer;
let dir: string;
let addr: string[];
beforeAll(async () => {
  server = await startDev();
  addr = ['--addr', server.url, '--token', server.root];
  expect((await call(server, 'POST', '/v1/transit/keys/k', { body: {} })).status).toBe(200);
  const d = await call(server, 'POST', '/v1/transit/keys/d', { body: { derived: true } });
  expect(d.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'transitkit-stream-cli-'));
}, 30_000);
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('transitkit encrypt / decrypt against a server', () => {
  const plain = bytes(24 * MiB + 5);

  it('stdin → stdout both ways, quiet when stderr is not a terminal', async () => {
    const e = await cli(['encrypt', '--key', 'k', ...addr], plain);
    expect(e.stderr).toBe('');
    expect(e.code).toBe(0);
    expect(e.stdout.subarray(0, 4).toString()).toBe('TKS1');
    const d = await cli(['decrypt', '--key', 'k', ...addr], e.stdout);
    expect(d.stderr).toBe('');
    expect(d.code).toBe(0);
    expect(sha256(d.stdout)).toBe(sha256(plain));
  }, 60_000);

  it('--in / --out files, with VAULT_ADDR and VAULT_TOKEN, and a derived key context', async () => {
    const src = join(dir, 'plain.bin');
    writeFileSync(src, plain);
    const env = { VAULT_ADDR: server.url, VAULT_TOKEN: server.root };
    const ctx = ['--context', Buffer.from('tenant-1').toString('base64')];
    const e = await cli(
      ['encrypt', '--key', 'd', ...ctx, '--in', src, '--out', join(dir, 'x.tks')],
      undefined,
      env,
    );
    expect(e.stderr).toBe('');
    expect(e.code).toBe(0);
    const d = await cli(
      ['decrypt', '--key', 'd', ...ctx, '--in', join(dir, 'x.tks'), '--out', join(dir, 'x.out')],
      undefined,
      env,
    );
    expect(d.code).toBe(0);
    expect(sha256(readFileSync(join(dir, 'x.out')))).toBe(sha256(plain));
    // Without the context the data key does not unwrap: refused before any output.
    const no = await cli(['decrypt', '--key', 'd', '--in', join(dir, 'x.tks')], undefined, env);
    expect(no.code).toBe(1);
    expect(no.stdout.length).toBe(0);
    expect(no.stderr).toMatch(/^transitkit: server answered 400: /);
  }, 60_000);

  it('a tampered envelope: exit 1, and neither the output nor a temporary file is left', async () => {
    const e = await cli(['encrypt', '--key', 'k', ...addr], plain);
    const bad = Buffer.from(e.stdout);
    bad[20 * MiB] = (bad[20 * MiB] as number) ^ 1;
    const sub = mkdtempSync(join(dir, 'tamper-'));
    writeFileSync(join(sub, 'keep.bin'), 'previous content');
    const d = await cli(['decrypt', '--key', 'k', ...addr, '--out', join(sub, 'keep.bin')], bad);
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(/^transitkit: the server aborted the stream/);
    expect(readFileSync(join(sub, 'keep.bin'), 'utf8')).toBe('previous content');
    expect(readdirSync(sub)).toEqual(['keep.bin']);
    // On stdout only authenticated plaintext came out before the failure.
    const piped = await cli(['decrypt', '--key', 'k', ...addr], bad);
    expect(piped.code).toBe(1);
    expect(piped.stdout.length).toBeLessThan(20 * MiB);
    expect(sha256(piped.stdout)).toBe(sha256(plain.subarray(0, piped.stdout.length)));
  }, 60_000);

  it('--out through a link writes the file it names; a FIFO or a device is written, never replaced', async () => {
    const small = bytes(300_000);
    const sealed = (await cli(['encrypt', '--key', 'k', ...addr], small)).stdout;
    const sub = mkdtempSync(join(dir, 'out-kinds-'));
    const decryptTo = (out: string) =>
      cli(['decrypt', '--key', 'k', ...addr, '--out', out], sealed);

    writeFileSync(join(sub, 'target.bin'), 'previous content');
    symlinkSync('target.bin', join(sub, 'link.bin'));
    expect((await decryptTo(join(sub, 'link.bin'))).code).toBe(0);
    expect(lstatSync(join(sub, 'link.bin')).isSymbolicLink()).toBe(true);
    expect(sha256(readFileSync(join(sub, 'target.bin')))).toBe(sha256(small));

    // A FIFO, read by another party as it is written: it stays a FIFO.
    const fifo = join(sub, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const reading = readFile(fifo);
    const viaFifo = await decryptTo(fifo);
    expect(viaFifo.stderr).toBe('');
    expect(viaFifo.code).toBe(0);
    expect(sha256(await reading)).toBe(sha256(small));
    expect(lstatSync(fifo).isFIFO()).toBe(true);

    // A character device with /dev/null's numbers (where this user may create and open one):
    // replacing it would turn the system's /dev/null into a file of plaintext.
    const dev = join(sub, 'null');
    let canDevice = false;
    try {
      execFileSync('mknod', [dev, 'c', '1', '3'], { stdio: 'ignore' });
      closeSync(openSync(dev, 'w'));
      canDevice = true;
    } catch {
      // not root, or a nodev mount: the FIFO above covers the same path
    }
    if (canDevice) {
      expect((await decryptTo(dev)).code).toBe(0);
      expect(lstatSync(dev).isCharacterDevice()).toBe(true);
    }
    // No temporary file left anywhere.
    expect(readdirSync(sub).sort()).toEqual(
      ['fifo', 'link.bin', 'target.bin', ...(canDevice ? ['null'] : [])].sort(),
    );

    const toDir = await decryptTo(sub);
    expect(toDir.code).toBe(1);
    expect(toDir.stderr).toMatch(/^transitkit: cannot write --out .*EISDIR/);
  }, 60_000);

  it('refusals exit 1 with the server text, never the token', async () => {
    const secret = 'hvs.not-a-real-token-0123456789';
    const bad = await cli(
      ['encrypt', '--key', 'k', '--addr', server.url, '--token', secret],
      plain,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('transitkit: server answered 403: permission denied\n');
    expect(bad.stderr).not.toContain(secret);
    const missing = await cli(['encrypt', '--key', 'absent', ...addr], plain);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('transitkit: server answered 404: encryption key not found\n');
    const none = await cli(['encrypt', '--key', 'k', '--addr', server.url], plain);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no token/);
    const refused = await cli(
      ['encrypt', '--key', 'k', '--addr', 'http://127.0.0.1:1', '--token', secret],
      plain,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot connect/);
    expect(refused.stderr).not.toContain(secret);
    const badOut = await cli(['encrypt', '--key', 'k', ...addr, '--out', join(dir, 'no/such/x')]);
    expect(badOut.code).toBe(1);
    expect(badOut.stderr).toMatch(/^transitkit: cannot write --out .*ENOENT/);
    const empty = mkdtempSync(join(dir, 'refused-'));
    const down = await cli(
      [
        'encrypt',
        '--key',
        'k',
        '--addr',
        'http://127.0.0.1:1',
        '--token',
        secret,
        '--out',
        join(empty, 'x'),
      ],
      plain,
    );
    expect(down.code).toBe(1);
    expect(readdirSync(empty)).toEqual([]);
    const noFile = await cli(['encrypt', '--key', 'k', ...addr, '--in', join(dir, 'nope')]);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(/cannot read --in .*ENOENT/);
  }, 60_000);

  it('usage errors exit 2; --help shows the client commands', async () => {
    const noKey = await cli(['encrypt', ...addr]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^transitkit: encrypt needs --key NAME/);
    const flag = await cli(['decrypt', '--key', 'k', '--key-version', '2']);
    expect(flag.code).toBe(2);
    const help = await cli(['encrypt', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.toString()).toContain('transitkit encrypt --key NAME');
  }, 30_000);
});

describe('transitkit server --max-stream-bytes', () => {
  it('refuses a larger stream: 413 before reading (declared), abort after the 200', async () => {
    const small = await startDev(['--max-stream-bytes', String(MiB)]);
    try {
      const a = ['--addr', small.url, '--token', small.root];
      expect((await call(small, 'POST', '/v1/transit/keys/k', { body: {} })).status).toBe(200);
      const src = join(dir, 'two-mib.bin');
      writeFileSync(src, bytes(2 * MiB));
      const declared = await cli(['encrypt', '--key', 'k', ...a, '--in', src]);
      expect(declared.code).toBe(1);
      expect(declared.stderr).toBe(
        'transitkit: server answered 413: http: request body too large\n',
      );
      // From a pipe there is no length: the server cuts the stream at the limit.
      const piped = await cli(['encrypt', '--key', 'k', ...a], bytes(2 * MiB));
      expect(piped.code).toBe(1);
      expect(piped.stderr).toMatch(/^transitkit: the server aborted the stream/);
      const fits = await cli(['encrypt', '--key', 'k', ...a], bytes(MiB));
      expect(fits.code).toBe(0);
    } finally {
      await small.stop();
    }
    expect(() => parseArgs(['server', '--max-stream-bytes', '0'])).toThrow(/positive integer/);
  }, 60_000);
});

describe('parsing and the progress line', () => {
  it('parses the client flags, with the environment behind the command line', () => {
    expect(
      parseArgs(['encrypt', '--key', 'k', '--context=dGVzdA==', '--key-version', '3'], {
        VAULT_ADDR: 'http://vault:8200',
        VAULT_TOKEN: 't',
        TRANSITKIT_OUT: '/tmp/o',
      }),
    ).toEqual({
      kind: 'stream',
      args: {
        op: 'encrypt',
        key: 'k',
        addr: 'http://vault:8200',
        token: 't',
        context: 'dGVzdA==',
        keyVersion: 3,
        out: '/tmp/o',
      },
    });
    expect(() => parseArgs(['encrypt', '--key', 'k', '--addr', 'vault:8200'])).toThrow(UsageError);
    expect(() => parseArgs(['decrypt', '--key', 'k', '--listen', 'x'])).toThrow(/unknown flag/);
    expect(() => parseArgs(['encrypt', '--key', 'k', '--context', 'not base64!'])).toThrow(
      /base64/,
    );
    expect(helpText()).toContain('VAULT_CACERT');
  });

  it('formats sizes, percentages and rates', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(100 * MiB)).toBe('100 MiB');
    expect(formatBytes(1.5 * 1024 * MiB)).toBe('1.50 GiB');
    expect(formatProgress('encrypt', 1.5 * 1024 * MiB, 4 * 1024 * MiB, 3000)).toBe(
      'encrypt: 1.50 GiB of 4.00 GiB (37%), 512 MiB/s',
    );
    expect(formatProgress('decrypt', 80 * MiB, undefined, 2000)).toBe(
      'decrypt: 80.0 MiB, 40.0 MiB/s',
    );
    expect(formatProgress('encrypt', 0, 0, 0)).toBe('encrypt: 0 B of 0 B (100%), —');
    expect(showsProgress(true, PROGRESS_MIN_BYTES)).toBe(true);
    expect(showsProgress(true, PROGRESS_MIN_BYTES - 1)).toBe(false);
    expect(showsProgress(true, undefined, PROGRESS_MIN_BYTES)).toBe(true);
    expect(showsProgress(false, 10 * PROGRESS_MIN_BYTES)).toBe(false);
    expect(showsProgress(undefined, 10 * PROGRESS_MIN_BYTES)).toBe(false);
  });

  it('draws progress on a terminal for a large input, and nothing otherwise', async () => {
    const run = async (isTTY: boolean) => {
      let lines = '';
      let out = 0;
      const stderr = Object.assign(
        new Writable({
          write(c, _e, cb) {
            lines += c.toString();
            cb();
          },
        }),
        { isTTY },
      );
      const stdout = new Writable({
        write(c: Buffer, _e, cb) {
          out += c.length;
          cb();
        },
      });
      const g = generated(PROGRESS_MIN_BYTES + MiB);
      await runStreamCommand(
        { op: 'encrypt', key: 'k', addr: server.url, token: server.root },
        { stdin: Readable.from(g.chunks()), stdout, stderr },
      );
      expect(out).toBeGreaterThan(PROGRESS_MIN_BYTES);
      return lines;
    };
    const tty = await run(true);
    // Each redraw returns to the line start and clears it; the last one ends the line.
    expect(tty.startsWith('\r\u001b[K')).toBe(true);
    const last = tty.slice(tty.lastIndexOf('\u001b[K') + 3);
    expect(last).toMatch(/^encrypt: 65\.0 MiB, [0-9.]+ [KMG]?i?B\/s\n$/);
    expect(await run(false)).toBe('');
  }, 60_000);
});
