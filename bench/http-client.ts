/**
 * The keep-alive HTTP load client the HTTP benches share (http.bench.ts,
 * audit.bench.ts, metrics.bench.ts): their servers run in a forked child
 * process that reports its targets and answers `'cpu'` with its CPU time; the
 * load client runs here on one keep-alive `http.Agent` per target. Also
 * `listen`, which the stream-http server uses too.
 * @module
 */
import { type ChildProcess, fork } from 'node:child_process';
import { type Agent, request, type Server } from 'node:http';

/** Start `server` on a free loopback port; resolves with the port. */
export function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    }),
  );
}

/** A server under load: its name in the rows, its loopback port and the token it takes. */
export interface LoadTarget {
  name: string;
  port: number;
  token: string;
}

/** One request on a keep-alive agent with `t`'s token; resolves with status and body. */
export function send(
  agent: Agent,
  t: LoadTarget,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'x-vault-token': t.token };
    if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
    const req = request(
      { agent, host: '127.0.0.1', port: t.port, path, method, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * POSTs `body` to `path` for `ms` with `concurrency` requests in flight;
 * requests/s and how many were answered. Any answer but 200 throws. `alongside`
 * (given the end time) runs meanwhile, e.g. a periodic scrape.
 */
export async function load(
  agent: Agent,
  t: LoadTarget,
  path: string,
  body: string,
  ms: number,
  concurrency: number,
  alongside?: (end: number) => Promise<void>,
): Promise<{ rps: number; done: number }> {
  let done = 0;
  const end = performance.now() + ms;
  const worker = async () => {
    while (performance.now() < end) {
      const r = await send(agent, t, 'POST', path, body);
      if (r.status !== 200) throw new Error(`${t.name}: ${r.status} ${r.body}`);
      done++;
    }
  };
  const start = performance.now();
  await Promise.all([...Array.from({ length: concurrency }, worker), alongside?.(end)]);
  return { rps: (done * 1000) / (performance.now() - start), done };
}

/** The forked server process: its targets, its CPU time on demand, and a way to stop it. */
export interface ServerProcess<T extends LoadTarget> {
  targets: T[];
  /** The server process's CPU time so far (user + system, µs). */
  cpu(): Promise<number>;
  /** Asks the server process to stop and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Forks `file` (under tsx's loader) with `args` as the server process and
 * waits for the targets it sends (see {@link serveTargets}). `under`: a
 * command the server runs inside, with its arguments (`['valgrind', …]`,
 * then `nodeArgs` for node itself).
 */
export async function startServers<T extends LoadTarget>(
  file: string,
  args: string[],
  under?: { command: string[]; nodeArgs: string[] },
): Promise<ServerProcess<T> & { pid: number }> {
  const node = [...(under?.nodeArgs ?? []), '--import', 'tsx'];
  const child = fork(file, args, {
    execPath: under?.command[0] ?? process.execPath,
    execArgv: under ? [...under.command.slice(1), process.execPath, ...node] : node,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const targets = await new Promise<T[]>((resolve, reject) => {
    child.once('message', (m) => resolve(m as T[]));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
  });
  return {
    targets,
    pid: child.pid ?? 0,
    cpu: () => serverCpu(child),
    stop: () => stopServer(child),
  };
}

/** Server processes, each with its targets; CPU time by target. */
export interface ServerProcesses<T extends LoadTarget> {
  targets: T[];
  /** CPU time so far (µs) of the process serving `t`. */
  cpu(t: T): Promise<number>;
  /** Stops every process. */
  stop(): Promise<void>;
}

/**
 * {@link startServers} once per entry of `each`, with that entry as the last
 * argument: one server process per entry, started side by side. Servers
 * measured against each other run in processes of their own, as each is
 * deployed: in a shared process each runs code whose type feedback the
 * others shaped (see bench/http.bench.ts).
 */
export async function startEach<T extends LoadTarget>(
  file: string,
  args: string[],
  each: string[],
): Promise<ServerProcesses<T>> {
  const procs = await Promise.all(each.map((last) => startServers<T>(file, [...args, last])));
  const of = (t: T) => {
    const p = procs.find((x) => x.targets.includes(t));
    if (!p) throw new Error(`no server process for ${t.name}`);
    return p;
  };
  return {
    targets: procs.flatMap((p) => p.targets),
    cpu: (t) => of(t).cpu(),
    stop: async () => {
      await Promise.all(procs.map((p) => p.stop()));
    },
  };
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.send('stop');
  await exited;
}

function serverCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'cpu' in m) {
        child.off('message', on);
        resolve((m as { cpu: number }).cpu);
      }
    };
    child.on('message', on);
    child.send('cpu');
  });
}

/**
 * In the server process: send the targets, then answer `'cpu'` with this
 * process's CPU time and any other message by calling `stop`.
 */
export function serveTargets(targets: LoadTarget[], stop: () => void): void {
  process.send?.(targets);
  process.on('message', (m) => {
    if (m === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
    } else stop();
  });
  // The bench is gone (a failure elsewhere): so is this server.
  process.on('disconnect', stop);
}
