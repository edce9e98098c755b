/**
 * Drives the real CLI server over real HTTP: spawns
 * `node --import tsx adapters/cli/main.ts server …` (the same code the `transitkit`
 * bin runs after a build), reads the printed URL and root token, and sends
 * requests with `fetch` (which sends `LIST` as is) or raw sockets.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  AclPolicyStore,
  createHandler,
  type Services,
  TokenStore,
} from '../../adapters/http/index.js';
import { createServer } from '../../adapters/http/node-server.js';
import { MemoryStorage, Transit } from '../../src/index.js';

export const ROOT_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** A running CLI server. */
export interface CliServer {
  url: string;
  root: string;
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Send a signal and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawn `transitkit server` with `args` and wait for its URL line. */
export async function startCli(args: readonly string[], timeoutMs = 20_000): Promise<CliServer> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'adapters/cli/main.ts', 'server', ...args],
    { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => resolve(code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no URL within ${timeoutMs} ms: ${out} ${err}`)),
      timeoutMs,
    );
    const check = () => {
      const m = /http:\/\/[^\s]+/.exec(out);
      if (m && /Root Token|Transit mount/.test(out)) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    };
    proc.stdout?.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening: ${out} ${err}`));
    });
  });
  await new Promise((r) => setTimeout(r, 50));
  const root = /Root Token[^:]*: (\S+)/.exec(out)?.[1] ?? '';
  return {
    url,
    root,
    proc,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      return exited;
    },
  };
}

/** Start a dev server with a random root token. */
export const startDev = (extra: readonly string[] = []): Promise<CliServer> =>
  startCli([
    '--dev',
    '--dev-root-token',
    `root-${randomBytes(8).toString('hex')}`,
    '--listen',
    '127.0.0.1:0',
    ...extra,
  ]);

/** A response, parsed. */
export interface Res {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test convenience for reading JSON bodies
  json: any;
}

/** Send one request; `token: null` sends none. Bodies that are objects are JSON-encoded. */
export async function call(
  server: { url: string; root: string },
  method: string,
  path: string,
  opts: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const token = opts.token === undefined ? server.root : opts.token;
  if (token !== null) headers['x-vault-token'] = token;
  let body: string | Uint8Array | undefined;
  if (typeof opts.body === 'string' || opts.body instanceof Uint8Array) body = opts.body;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  const r = await fetch(server.url + path, { method, headers, body: body as BodyInit | undefined });
  const text = await r.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}

/** Send raw bytes on a fresh connection; resolves with everything received until close or `ms`. */
export function rawRequest(url: string, bytes: string | Buffer, ms = 3000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(got);
    }, ms);
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      if (got) resolve(got);
      else reject(e);
    });
  });
}

/** Base64 of UTF-8 text. */
export const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** A python3 that can `import hvac` (Debian's python3-hvac); fails loudly without one. */
export function pythonWithHvac(): string {
  for (const py of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(py, ['-c', 'import hvac'], { stdio: 'ignore' });
    if (r.status === 0) return py;
  }
  throw new Error('no python3 with hvac: apt-get install python3-hvac (.ci/run does)');
}

/** transitkit's handler on memory storage with a root token, as the README's mount recipe makes it. */
export async function vaultHandler() {
  const storage = new MemoryStorage();
  const tokens = new TokenStore({ storage });
  const rootToken = await tokens.createRoot();
  const vault = createHandler({
    transit: new Transit({ storage, autoRotate: false }),
    tokens,
    policies: new AclPolicyStore({ storage }),
  });
  return { vault, rootToken };
}

/**
 * `services` served in this process by `createServer` on 127.0.0.1 (a free
 * port), errors logged nowhere: the server's `url`, a new root token of
 * `services.tokens` as `root` (the shape {@link call} takes), and `close()`.
 */
export async function serveServices(
  services: Services & { tokens: TokenStore },
): Promise<{ url: string; root: string; close(): Promise<void> }> {
  const server = createServer(createHandler(services, { logger: { error: () => undefined } }));
  const { url } = await server.listen(0, '127.0.0.1');
  return {
    url,
    root: await services.tokens.createRoot(),
    close: () => server.close({ drainMs: 0 }),
  };
}
