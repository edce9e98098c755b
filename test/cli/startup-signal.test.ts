/**
 * `transitkit server`: signals that arrive during start-up. The CLI holds its
 * SIGTERM, SIGINT and SIGHUP handlers from the first instruction of the server
 * command, so a stop requested while the storage connects (here: a TCP port
 * that accepts and never answers, in place of Redis or PostgreSQL) ends start-up
 * at once, closes what was opened, prints no secret and exits 0, as a SIGTERM
 * after start-up does; SIGHUP during start-up (a log rotation) is deferred,
 * never a kill. A real child process, as the other CLI tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../http/helpers.js';

/** A TCP server that accepts connections and never writes a byte. */
interface Silent {
  port: number;
  /** Resolves at the first accepted connection. */
  connected: Promise<void>;
  sockets: Set<Socket>;
  server: Server;
}

const opened: Silent[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill();
  for (const s of opened.splice(0)) {
    for (const socket of s.sockets) socket.destroy();
    await new Promise((r) => s.server.close(r));
  }
});

/** The commands (arrays of bulk strings) at the start of `buf`, and what is left of it. */
function respCommands(buf: string): { commands: string[][]; rest: string } {
  const commands: string[][] = [];
  let i = 0;
  for (;;) {
    const head = buf.indexOf('\r\n', i);
    if (buf[i] !== '*' || head < 0) break;
    const args: string[] = [];
    let j = head + 2;
    for (let n = Number(buf.slice(i + 1, head)); n > 0; n--) {
      const eol = buf.indexOf('\r\n', j);
      const len = Number(buf.slice(j + 1, eol));
      if (eol < 0 || buf.length < eol + 4 + len) return { commands, rest: buf.slice(i) };
      args.push(buf.slice(eol + 2, eol + 2 + len));
      j = eol + 4 + len;
    }
    commands.push(args);
    i = j;
  }
  return { commands, rest: buf.slice(i) };
}

/**
 * A silent storage: accepts, reads and never answers (`connected` resolves at
 * the first connection: start-up is connecting). With `redisReady`, it plays a
 * Redis server through ioredis's connection handshake (`CLIENT SETINFO`, the
 * `INFO` ready check), then goes silent: the storage opens, and its first
 * command (`connected` resolves there: start-up is in the node) never returns.
 */
async function silentStorage(redisReady = false): Promise<Silent> {
  const sockets = new Set<Socket>();
  let first: () => void = () => undefined;
  const connected = new Promise<void>((r) => {
    first = r;
  });
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (!redisReady) {
      first();
      return;
    }
    let buf = '';
    let ready = false;
    socket.on('data', (d: Buffer) => {
      const { commands, rest } = respCommands(buf + d.toString('latin1'));
      buf = rest;
      for (const [name] of commands) {
        if (ready) first();
        else if (name?.toLowerCase() === 'info') {
          const info = '# Server\r\nredis_version:7.2.0\r\nloading:0\r\n';
          socket.write(`$${info.length}\r\n${info}\r\n`);
          ready = true;
        } else socket.write('+OK\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const s = { port, connected, sockets, server };
  opened.push(s);
  return s;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  stdout: string;
  stderr: string;
}

/** Spawn `transitkit server ARGS` from source; `exit(after)` times the exit from `after`. */
function spawnServer(args: readonly string[]) {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'adapters/cli/main.ts', 'server', ...args],
    { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  children.push(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.once('exit', (code, signal) => r({ code, signal })),
  );
  return {
    proc,
    /** Send `signal` and wait (at most `limitMs`) for the exit. */
    async signalAndWait(signal: NodeJS.Signals, limitMs = 10_000): Promise<Exit> {
      const t0 = Date.now();
      proc.kill(signal);
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), limitMs));
      const r = await Promise.race([exited, timeout]);
      if (r === 'timeout') {
        throw new Error(`no exit ${limitMs} ms after ${signal}: ${stdout} ${stderr}`);
      }
      return { ...r, ms: Date.now() - t0, stdout, stderr };
    },
    alive: () => proc.exitCode === null && proc.signalCode === null,
  };
}

/** Nothing secret: no root token, unseal key, hvs. token or base64 key material. */
function expectNoSecret(text: string, token: string): void {
  expect(text).not.toContain(token);
  expect(text).not.toMatch(/Root Token|Unseal Key|hvs\.|[A-Za-z0-9+/]{40,}={0,2}/);
}

/** The dev server on the storage at `url` (a silent one here), on a free port. */
function spawnOnStorage(url: string, token?: string) {
  const root = token === undefined ? [] : ['--dev-root-token', token];
  return spawnServer(['--dev', ...root, '--storage', url, '--listen', '127.0.0.1:0']);
}

/** The Redis URL of a silent storage. */
const redisUrl = (storage: Silent) => `redis://127.0.0.1:${storage.port}/0`;

describe('a signal during start-up', () => {
  it.each([
    ['SIGTERM', 'redis'],
    ['SIGINT', 'redis'],
    ['SIGTERM', 'postgres'],
  ] as const)(
    '%s while %s storage does not answer: start-up stops, exit 0 within seconds, no secret',
    async (signal, kind) => {
      const storage = await silentStorage();
      const token = `dev-${randomBytes(12).toString('hex')}`;
      const url =
        kind === 'redis'
          ? redisUrl(storage)
          : `postgres://transitkit@127.0.0.1:${storage.port}/transitkit`;
      const s = spawnOnStorage(url, token);
      await storage.connected; // start-up is now waiting on the storage
      await new Promise((r) => setTimeout(r, 100));
      expect(s.alive()).toBe(true);
      const exit = await s.signalAndWait(signal);
      expect(exit.signal, exit.stderr).toBeNull();
      expect(exit.code, exit.stderr).toBe(0);
      expect(exit.ms).toBeLessThan(3_000);
      expect(exit.stdout).not.toContain('http://');
      expectNoSecret(exit.stderr, token);
      expectNoSecret(exit.stdout, token);
    },
  );

  it('SIGTERM once the storage is open but hangs: the node and storage are given up on after a bound, exit 1, no secret', async () => {
    const storage = await silentStorage(true);
    const token = `dev-${randomBytes(12).toString('hex')}`;
    const s = spawnOnStorage(redisUrl(storage), token);
    await storage.connected;
    expect(s.alive()).toBe(true);
    const exit = await s.signalAndWait('SIGTERM');
    expect(exit.signal, exit.stderr).toBeNull();
    expect(exit.code, exit.stderr).toBe(1);
    expect(exit.ms).toBeLessThan(6_000);
    expect(exit.stderr).toMatch(/did not close within/);
    expect(exit.stdout).not.toContain('http://');
    expectNoSecret(exit.stderr, token);
    expectNoSecret(exit.stdout, token);
  });

  it('SIGHUP during start-up is not a kill; a SIGTERM after it still stops start-up with exit 0', async () => {
    const storage = await silentStorage();
    const s = spawnOnStorage(redisUrl(storage));
    await storage.connected;
    s.proc.kill('SIGHUP');
    await new Promise((r) => setTimeout(r, 400));
    expect(s.alive()).toBe(true);
    const exit = await s.signalAndWait('SIGTERM');
    expect(exit.signal, exit.stderr).toBeNull();
    expect(exit.code, exit.stderr).toBe(0);
  });

  it('a second SIGTERM while start-up is stopping exits 1 at once', async () => {
    const storage = await silentStorage(true);
    const s = spawnOnStorage(redisUrl(storage));
    await storage.connected;
    s.proc.kill('SIGTERM'); // the stop now waits (bounded) for the hanging storage
    await new Promise((r) => setTimeout(r, 300));
    const exit = await s.signalAndWait('SIGTERM');
    expect(exit.signal, exit.stderr).toBeNull();
    expect(exit.code).toBe(1);
    expect(exit.ms).toBeLessThan(1_500);
  });

  it('SIGTERM the moment the listener accepts: handled once (no kill, no double handling), exit 0', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as { port: number };
    await new Promise((r) => probe.close(r));
    const s = spawnServer(['--dev', '--listen', `127.0.0.1:${port}`]);
    // Poll the port: SIGTERM as soon as it is bound, before or after the start-up lines.
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        const c = connect(port, '127.0.0.1');
        c.once('connect', () => {
          c.destroy();
          resolve(true);
        });
        c.once('error', () => resolve(false));
      });
      if (up || !s.alive()) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    const exit = await s.signalAndWait('SIGTERM');
    expect(exit.signal, exit.stderr).toBeNull();
    expect(exit.code, exit.stderr).toBe(0);
    const handled = exit.stdout.match(/==> SIGTERM: (draining|start-up stopped)/g) ?? [];
    expect(handled).toHaveLength(1);
  });
});
