/**
 * `transitkit inspect` as a real process: one JSON line per envelope with the
 * wrapping key version, from files and from stdin (of which it reads only the
 * head); a file that is missing or not an envelope gets one line on stderr,
 * the others are still printed, and the exit status is 1; flags are usage
 * errors (exit 2).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../adapters/cli/args.js';
import { Transit } from '../../src/transit/transit.js';
import { ROOT_DIR } from '../http/helpers.js';
import { encryptAll, pattern } from '../stream/support.js';

const dir = mkdtempSync(join(tmpdir(), 'tk-inspect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run `transitkit inspect <args>` from source, `input` on stdin (left open with `keepOpen`). */
function inspect(
  args: string[],
  input?: Uint8Array,
  keepOpen = false,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'adapters/cli/main.ts', 'inspect', ...args],
    {
      cwd: ROOT_DIR,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  proc.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  // The command may stop reading stdin early: a closed pipe is not a failure here.
  proc.stdin.on('error', () => {});
  if (keepOpen && input) proc.stdin.write(input);
  else proc.stdin.end(input);
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('transitkit inspect', () => {
  it('parses files, stdin and flags', () => {
    expect(parseArgs(['inspect'])).toEqual({ kind: 'inspect', files: ['-'] });
    expect(parseArgs(['inspect', 'a.tks1', '-', 'b'])).toEqual({
      kind: 'inspect',
      files: ['a.tks1', '-', 'b'],
    });
    expect(parseArgs(['inspect', '--help'])).toEqual({ kind: 'help' });
    expect(() => parseArgs(['inspect', '--key', 'k'])).toThrow(UsageError);
    expect(() => parseArgs(['inspect', '-x'])).toThrow(/unknown flag -x for inspect/);
  });

  it('prints the wrapping version of each envelope, and reports the rest', async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('backups');
    const v1 = await encryptAll(transit, 'backups', pattern(50_000, 1));
    await transit.rotateKey('backups');
    const v2 = await encryptAll(transit, 'backups', pattern(10, 2));
    await transit.close();
    const [a, b, bad, missing] = ['a.tks1', 'b.tks1', 'notes.txt', 'gone.tks1'].map((f) =>
      join(dir, f),
    );
    writeFileSync(a as string, v1);
    writeFileSync(b as string, v2);
    writeFileSync(bad as string, 'not an envelope\n');

    const all = await inspect([a, b] as string[]);
    expect(all.code).toBe(0);
    expect(all.stderr).toBe('');
    const [first, second] = lines(all.stdout);
    expect(first).toMatchObject({ file: a, key_version: 1 });
    expect(second).toMatchObject({ file: b, key_version: 2 });
    expect(String(first?.wrapped_key)).toMatch(/^vault:v1:/);
    expect(first?.header_length).toBe(6 + String(first?.wrapped_key).length);

    // A path that is a FIFO (as `<(cat a.tks1)` gives) is read from its head.
    const fifo = join(dir, 'pipe.tks1');
    execFileSync('mkfifo', [fifo]);
    const writer = createWriteStream(fifo);
    writer.on('error', () => {}); // the reader stops after the header
    writer.end(v1);
    const piped = await inspect([fifo]);
    expect(piped.stderr).toBe('');
    expect(lines(piped.stdout)[0]).toMatchObject({ file: fifo, key_version: 1 });

    const mixed = await inspect([a, bad, missing, b] as string[]);
    expect(mixed.code).toBe(1);
    expect(lines(mixed.stdout).map((l) => l.key_version)).toEqual([1, 2]);
    expect(mixed.stderr).toBe(
      `transitkit inspect: ${bad}: stream: not a TKS1 envelope (bad magic)\n` +
        `transitkit inspect: ${missing}: no such file\n`,
    );
  });

  it('reads the head of stdin only', async () => {
    const transit = new Transit({ autoRotate: false });
    await transit.createKey('k');
    await transit.rotateKey('k');
    const big = await encryptAll(transit, 'k', pattern(4 * 1024 * 1024, 3));
    await transit.close();
    // stdin is never closed: the command answers from the head and does not wait for the end.
    const out = await inspect([], big, true);
    expect(out.code).toBe(0);
    expect(lines(out.stdout)).toEqual([expect.objectContaining({ file: '-', key_version: 2 })]);

    const empty = await inspect(['-'], new Uint8Array(0));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toBe(
      'transitkit inspect: stdin: stream: not a TKS1 envelope (the header takes 6 bytes, the source holds 0)\n',
    );

    const usage = await inspect(['--addr', 'http://x:1']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown flag --addr for inspect/);
  });
});
