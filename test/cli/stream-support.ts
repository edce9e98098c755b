/**
 * Running `transitkit encrypt|decrypt` from source as a real process, for the
 * stream CLI tests (stream-cli.test.ts, stream-interrupted.test.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ROOT_DIR } from '../http/helpers.js';

/** How a CLI process ended. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  /** Killed by the test because it did not exit within its budget. */
  hung: boolean;
}

/**
 * Start the CLI with `args`, its stdio piped, in an environment without the
 * runner's `VAULT_*` / `TRANSITKIT_*` variables (plus `env`).
 */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess {
  const clean = { ...process.env };
  for (const k of Object.keys(clean)) {
    if (k.startsWith('VAULT_') || k.startsWith('TRANSITKIT_')) delete clean[k];
  }
  return spawn(process.execPath, ['--import', 'tsx', 'adapters/cli/main.ts', ...args], {
    cwd: ROOT_DIR,
    env: { ...clean, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * Collect `p`'s output until it exits; with `budgetMs`, kill it (SIGKILL,
 * `hung: true`) if it has not exited by then.
 */
export function ended(p: ChildProcess, budgetMs?: number): Promise<Ended> {
  const out: Buffer[] = [];
  let err = '';
  let hung = false;
  p.stdout?.on('data', (d: Buffer) => out.push(d));
  p.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  p.stdin?.on('error', () => {});
  const timer =
    budgetMs === undefined
      ? undefined
      : setTimeout(() => {
          hung = true;
          p.kill('SIGKILL');
        }, budgetMs);
  return new Promise((resolve) =>
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: err, hung });
    }),
  );
}

/** Run the CLI with `input` on stdin (none: stdin closed at once) and wait for it to exit. */
export function cli(
  args: string[],
  input?: Uint8Array,
  env: Record<string, string> = {},
): Promise<Ended> {
  const p = spawnCli(args, env);
  const done = ended(p);
  p.stdin?.end(input ? Buffer.from(input) : undefined);
  return done;
}
