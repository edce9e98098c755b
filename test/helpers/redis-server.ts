/**
 * A real `redis-server` for tests: started on a free port in a fresh temp
 * directory, stopped with the signal a test chooses (SIGTERM: clean shutdown;
 * SIGKILL: a crash), and restarted on the same port and directory, so its
 * append-only file is replayed.
 *
 * Readiness and exit are awaited as events (the "Ready to accept connections"
 * log line; the process `exit`), never slept for.
 *
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOnFreePort } from './free-port.js';

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** `appendonly yes` (default false: a pure in-memory server). */
  appendonly?: boolean;
  /** `appendfsync` policy when `appendonly` (default `everysec`). */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** Start in cluster mode and assign every slot to this one node. */
  cluster?: boolean;
}

/** Path of the redis-server binary, or `undefined` when it is not installed. */
export const REDIS_SERVER: string | undefined = findRedisServer();

/**
 * Skip the Redis tests: only when redis-server is absent and this is not CI
 * (`CI` set). In CI a missing server fails the tests instead of hiding them.
 */
export const SKIP_REDIS: boolean = REDIS_SERVER === undefined && !process.env.CI;

/** The message shown when redis tests are skipped. */
export const NO_REDIS_REASON =
  'redis-server not found on PATH: install it (Debian: apt-get install redis-server) to run the Redis adapter tests';

function findRedisServer(): string | undefined {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('Redis server') ? 'redis-server' : undefined;
}

/** A running (or stopped) redis-server owned by a test. */
export class RedisServer {
  readonly port: number;
  readonly dir: string;
  readonly #options: RedisServerOptions;
  #proc: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();

  private constructor(port: number, dir: string, options: RedisServerOptions) {
    this.port = port;
    this.dir = dir;
    this.#options = options;
  }

  /** `redis://127.0.0.1:<port>/0`. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Whether the process is running. */
  get running(): boolean {
    return this.#proc !== undefined;
  }

  /** Start a server on a free port in a new temp directory. */
  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    if (REDIS_SERVER === undefined) throw new Error(NO_REDIS_REASON);
    const dir = await mkdtemp(join(tmpdir(), 'transitkit-redis-'));
    return startOnFreePort(
      dir,
      (port) => new RedisServer(port, dir, options),
      (server) => server.restart(),
    );
  }

  /** Start the process again on the same port and directory (replays the AOF). */
  async restart(): Promise<void> {
    if (this.#proc !== undefined) throw new Error('redis-server is already running');
    const o = this.#options;
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      o.appendonly ? 'yes' : 'no',
      '--appendfsync',
      o.appendfsync ?? 'everysec',
      '--daemonize',
      'no',
      '--loglevel',
      'notice',
    ];
    if (o.cluster) {
      // A lone node does not know its own address; announce it, or CLUSTER SLOTS says ''.
      args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf');
      args.push('--cluster-announce-ip', '127.0.0.1');
    }
    const proc = spawn(REDIS_SERVER as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const onData = (d: Buffer) => {
        log += d.toString();
        if (log.includes('Ready to accept connections')) {
          proc.stdout?.off('data', onData);
          proc.stdout?.resume(); // keep draining so the server never blocks on its log
          resolve();
        }
      };
      proc.stdout?.on('data', onData);
      proc.stderr?.on('data', (d: Buffer) => {
        log += d.toString();
      });
      proc.once('exit', (code, signal) =>
        reject(new Error(`redis-server exited (${code ?? signal}) before ready:\n${log}`)),
      );
    });
    this.#proc = proc;
    if (o.cluster) await this.#assignAllSlots();
  }

  /** Stop the process with `signal` and wait for it to exit. No-op when stopped. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const proc = this.#proc;
    if (proc === undefined) return;
    this.#proc = undefined;
    proc.kill(signal);
    await this.#exited;
  }

  /** Stop (SIGKILL) and delete the directory. */
  async destroy(): Promise<void> {
    await this.stop('SIGKILL');
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Run a command with redis-cli against this server; returns its stdout. */
  cli(...args: string[]): string {
    const r = spawnSync('redis-cli', ['-p', String(this.port), ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`redis-cli ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.trim();
  }

  /** Make a one-node cluster: this node serves all 16384 slots. */
  async #assignAllSlots(): Promise<void> {
    const info = this.cli('CLUSTER', 'INFO');
    if (!info.includes('cluster_state:ok')) this.cli('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
    for (let i = 0; i < 200; i++) {
      if (this.cli('CLUSTER', 'INFO').includes('cluster_state:ok')) return;
      await new Promise((r) => setTimeout(r, 25)); // bounded poll: no event for this
    }
    throw new Error('the one-node cluster did not reach cluster_state:ok');
  }
}

/** Convenience: {@link RedisServer.start}. */
export const startRedisServer = (options?: RedisServerOptions): Promise<RedisServer> =>
  RedisServer.start(options);
