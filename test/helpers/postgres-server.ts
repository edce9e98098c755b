/**
 * A real PostgreSQL server for tests (and examples/postgres.ts): a fresh cluster
 * made by `initdb` in a temp directory, `postgres` started on a free port,
 * stopped the way a test chooses (`fast`: clean shutdown, SIGINT; `immediate`: a
 * crash, SIGQUIT, WAL recovery on the next start) and restarted on the same port
 * and directory.
 *
 * `initdb` and `postgres` refuse to run as root: as root, both run as the
 * `postgres` OS user through `setpriv` (which execs, so the child's pid is the
 * postmaster's and signals reach it), in a directory chowned to that user.
 *
 * Readiness and exit are awaited as events (the "ready to accept connections"
 * log line; the process `exit`), never slept for.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOnFreePort } from './free-port.js';

/** Directory holding `initdb` and `postgres`, or `undefined` when not installed. */
export const POSTGRES_BIN: string | undefined = findBinDir();

/**
 * Skip the PostgreSQL tests: only when the binaries are absent and this is not
 * CI (`CI` set). In CI a missing server fails the tests instead of hiding them.
 */
export const SKIP_POSTGRES: boolean = POSTGRES_BIN === undefined && !process.env.CI;

/** The message shown when PostgreSQL tests are skipped. */
export const NO_POSTGRES_REASON =
  'PostgreSQL server binaries (initdb, postgres) not found: install them (Debian: apt-get install postgresql) to run the PostgreSQL adapter tests';

function findBinDir(): string | undefined {
  const candidates: string[] = [];
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (cfg.status === 0) candidates.push(cfg.stdout.trim());
  try {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  } catch {
    // not a Debian layout
  }
  return candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'postgres')));
}

const AS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;

/** `[command, args]` running `bin` as the postgres OS user when we are root. */
function asPostgres(bin: string, args: string[]): [string, string[]] {
  if (!AS_ROOT) return [bin, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', bin, ...args]];
}

/** How {@link PostgresServer.stop} shuts the server down. */
export type StopMode = 'fast' | 'immediate';

/** Options of {@link PostgresServer.start}. */
export interface PostgresServerOptions {
  /**
   * `fsync` (default false: faster on a shared test machine; a crash of the
   * server *process* loses nothing either way, the WAL is in the OS page cache).
   */
  fsync?: boolean;
  /** Also listen on a Unix socket in the temp directory (see {@link PostgresServer.socketUrl}). */
  unixSocket?: boolean;
}

/** A running (or stopped) PostgreSQL server owned by a test. */
export class PostgresServer {
  readonly port: number;
  /** The temp directory (the data directory is `<dir>/data`). */
  readonly dir: string;
  readonly #options: PostgresServerOptions;
  #proc: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  private constructor(port: number, dir: string, options: PostgresServerOptions) {
    this.port = port;
    this.dir = dir;
    this.#options = options;
  }

  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** libpq's form for the Unix socket (`unixSocket: true`): the host in the query. */
  get socketUrl(): string {
    return `postgres://postgres@/postgres?host=${encodeURIComponent(this.dir)}&port=${this.port}`;
  }

  /** Whether the process is running. */
  get running(): boolean {
    return this.#proc !== undefined;
  }

  /** `initdb` a new cluster in a temp directory and start it on a free port. */
  static async start(options: PostgresServerOptions = {}): Promise<PostgresServer> {
    const bin = POSTGRES_BIN;
    if (bin === undefined) throw new Error(NO_POSTGRES_REASON);
    const dir = await mkdtemp(join(tmpdir(), 'transitkit-pg-'));
    if (AS_ROOT) chownSync(dir, ...postgresIds());
    const [cmd, args] = asPostgres(join(bin, 'initdb'), [
      ...['-D', join(dir, 'data'), '-U', 'postgres', '--auth=trust'],
      ...['-E', 'UTF8', '--no-locale', '--no-sync'],
    ]);
    const init = spawnSync(cmd, args, { encoding: 'utf8' });
    if (init.status !== 0) {
      await rm(dir, { recursive: true, force: true });
      throw new Error(`initdb failed (${init.status}): ${init.stderr}${init.stdout}`);
    }
    return startOnFreePort(
      dir,
      (port) => new PostgresServer(port, dir, options),
      (server) => server.restart(),
    );
  }

  /** Start the server again on the same port and data directory. */
  async restart(): Promise<void> {
    if (this.#proc !== undefined) throw new Error('postgres is already running');
    const [cmd, args] = asPostgres(join(POSTGRES_BIN as string, 'postgres'), [
      ...['-D', join(this.dir, 'data'), '-p', String(this.port)],
      ...['-k', this.#options.unixSocket ? this.dir : ''],
      ...['-c', 'listen_addresses=127.0.0.1', '-c', `fsync=${this.#options.fsync ? 'on' : 'off'}`],
      ...['-c', 'max_connections=200', '-c', 'shared_buffers=32MB', '-c', 'logging_collector=off'],
    ]);
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const onData = (d: Buffer) => {
        log += d.toString();
        if (log.includes('database system is ready to accept connections')) {
          proc.stderr?.off('data', onData);
          proc.stderr?.resume(); // keep draining so the server never blocks on its log
          resolve();
        }
      };
      proc.stderr?.on('data', onData);
      proc.stdout?.resume();
      proc.once('exit', (code, signal) =>
        reject(new Error(`postgres exited (${code ?? signal}) before ready:\n${log}`)),
      );
    });
    this.#proc = proc;
  }

  /**
   * Stop the server and wait for it to exit: `fast` (SIGINT) disconnects clients
   * and shuts down cleanly; `immediate` (SIGQUIT) is a crash, recovered from the
   * WAL on the next start. No-op when stopped.
   */
  async stop(mode: StopMode = 'fast'): Promise<void> {
    const proc = this.#proc;
    if (proc === undefined) return;
    this.#proc = undefined;
    proc.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
    await this.#exited;
  }

  /** Stop (immediate) and delete the directory. */
  async destroy(): Promise<void> {
    await this.stop('immediate');
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** uid and gid of the postgres OS user. */
function postgresIds(): [number, number] {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error('running as root needs a "postgres" OS user (the Debian package creates it)');
  }
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}

/** Convenience: {@link PostgresServer.start}. */
export const startPostgresServer = (options?: PostgresServerOptions): Promise<PostgresServer> =>
  PostgresServer.start(options);
