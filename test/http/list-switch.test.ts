/**
 * `LIST` on a natively parsed connection (adapters/http/list-switch.ts): a
 * connection is parsed by Node's own parser until its first `LIST`, which is
 * then answered as `GET ?list=true` with everything after it parsed on the
 * rewriting path. Over real sockets: the switch after other requests, first
 * on a connection, behind pipelined requests whose answers are still being
 * written, with a body, split across reads at every byte; Node's own answers
 * to bad requests kept; a server with its own `clientError` listener; and
 * `listReplay`, which finds the request line in what the parser refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReplay } from '../../adapters/http/list-switch.js';
import {
  acceptListMethod,
  createServer,
  type TransitkitServer,
} from '../../adapters/http/node-server.js';

/** What the test server answers: the request as its handler saw it. */
interface Seen {
  method: string;
  url: string;
  /** Parsed by Node's native parser (reading straight from the socket). */
  native: boolean;
  body: string;
}

/** Echo the request; `?delay=N` answers after N ms. */
function echo(req: IncomingMessage, res: import('node:http').ServerResponse): void {
  let body = '';
  req.setEncoding('latin1');
  req.on('data', (d: string) => {
    body += d;
  });
  req.on('end', () => {
    const parser = (req.socket as unknown as { parser?: { _consumed?: boolean } | null }).parser;
    const seen: Seen = {
      method: req.method ?? '',
      url: req.url ?? '',
      native: parser?._consumed === true,
      body,
    };
    const delay = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('delay') ?? 0);
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(seen));
    }, delay);
  });
}

/** Write `parts` on one connection, `gapMs` apart; resolve with all it received once closed. */
function exchange(
  port: number,
  parts: (string | Buffer | { answers: number })[],
  gapMs = 30,
  open: (port: number) => Socket = (p) => connect(p, '127.0.0.1'),
  ready: 'connect' | 'secureConnect' = 'connect',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = open(port);
    let got = '';
    let answered: () => void = () => undefined;
    socket.on('data', (d) => {
      got += d.toString('latin1');
      answered();
    });
    socket.on('close', () => resolve(got));
    socket.on('error', (e) => (got ? resolve(got) : reject(e)));
    // `{ answers: n }`: wait until n answers have arrived (not a guess at a delay).
    const answers = (n: number) =>
      new Promise<void>((done) => {
        answered = () => {
          if (got.split('HTTP/1.1 ').length - 1 >= n || socket.destroyed) done();
        };
        answered();
      });
    socket.once(ready, async () => {
      for (const p of parts) {
        if (socket.destroyed) return;
        if (typeof p === 'object' && 'answers' in p) {
          await answers(p.answers);
          continue;
        }
        socket.write(p);
        await new Promise((r) => setTimeout(r, gapMs));
      }
    });
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

/** The JSON bodies of the 200 answers in `raw`, in order. */
function answers(raw: string): Seen[] {
  return raw
    .split('HTTP/1.1 ')
    .slice(1)
    .map((a) => {
      expect(a.startsWith('200')).toBe(true);
      return JSON.parse(a.slice(a.indexOf('\r\n\r\n') + 4)) as Seen;
    });
}

const get = (path: string, close = false) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
const list = (path: string, close = false) =>
  `LIST ${path} HTTP/1.1\r\nHost: x\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

describe('listReplay', () => {
  const b = (s: string) => Buffer.from(s, 'latin1');
  it('finds the LIST line at the refused S and keeps the rest of the read', () => {
    const line = 'LIST /v1/k HTTP/1.1\r\nHost: x\r\n\r\n';
    expect(listReplay(b(line), 2)?.toString('latin1')).toBe(line);
    const before = 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n';
    expect(listReplay(b(before + line), before.length + 2)?.toString('latin1')).toBe(line);
    // The first one or two bytes came in an earlier read (accepted as a method's start).
    expect(listReplay(b(line.slice(1)), 1)?.toString('latin1')).toBe(line);
    expect(listReplay(b(line.slice(2)), 0)?.toString('latin1')).toBe(line);
    // The read ends inside the line: the rest comes through the rewriter.
    expect(listReplay(b('LIS'), 2)?.toString('latin1')).toBe('LIS');
    expect(listReplay(b('LIST'), 2)?.toString('latin1')).toBe('LIST');
  });

  it('refuses what is not a LIST', () => {
    expect(listReplay(b('LOST /k HTTP/1.1\r\n'), 2)).toBeUndefined();
    expect(listReplay(b('LISTEN /k HTTP/1.1\r\n'), 2)).toBeUndefined();
    expect(listReplay(b('xxUNLIST /k HTTP/1.1\r\n'), 6)).toBeUndefined();
    expect(listReplay(b('LIST /k'), 3)).toBeUndefined();
    expect(listReplay(b('LIST /k'), -1)).toBeUndefined();
    expect(listReplay(b('LIST /k'), 7)).toBeUndefined();
    expect(listReplay(b('LIST /k'), 2.5)).toBeUndefined();
    expect(listReplay('LIST /k', 2)).toBeUndefined();
    expect(listReplay(undefined, 2)).toBeUndefined();
  });
});

describe('createServer: native parsing until the first LIST', () => {
  let server: TransitkitServer;
  let port: number;
  beforeAll(async () => {
    server = createServer(echo);
    port = (await server.listen(0)).port;
  });
  afterAll(() => server.close({ drainMs: 100 }));

  it('parses natively, answers LIST as GET ?list=true, then goes on rewriting', async () => {
    const raw = await exchange(port, [get('/a'), list('/b?x=1'), get('/c'), list('/d', true)]);
    expect(answers(raw).map(({ method, url, native }) => [method, url, native])).toEqual([
      ['GET', '/a', true],
      ['GET', '/b?list=true&x=1', false],
      ['GET', '/c', false],
      ['GET', '/d?list=true', false],
    ]);
  });

  it('switches on a LIST that is the first request of a connection', async () => {
    const raw = await exchange(port, [list('/only', true)]);
    expect(answers(raw).map((s) => [s.method, s.url])).toEqual([['GET', '/only?list=true']]);
  });

  it('answers in order when LIST follows pipelined requests still being answered', async () => {
    const body = '{"a":1}';
    const raw = await exchange(port, [
      `POST /slow?delay=150 HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        get('/slower?delay=80') +
        list('/l') +
        `POST /after HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok` +
        list('/m', true),
    ]);
    expect(answers(raw).map(({ method, url, body: b }) => [method, url, b])).toEqual([
      ['POST', '/slow?delay=150', body],
      ['GET', '/slower?delay=80', ''],
      ['GET', '/l?list=true', ''],
      ['POST', '/after', 'ok'],
      ['GET', '/m?list=true', ''],
    ]);
  });

  it('keeps a LIST request body and what follows it', async () => {
    const raw = await exchange(port, [
      get('/first'),
      `LIST /k HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello${get('/next', true)}`,
    ]);
    expect(answers(raw).map(({ url, body }) => [url, body])).toEqual([
      ['/first', ''],
      ['/k?list=true', 'hello'],
      ['/next', ''],
    ]);
  });

  it('is the same when the LIST line is split across two reads at any byte', async () => {
    const line = list('/split', true);
    const results = await Promise.all(
      Array.from({ length: line.length - 1 }, (_, i) =>
        // /warm is answered (natively) before any byte of the LIST line is sent: under
        // load a fixed pause let the two arrive in one read, and /warm was parsed by the switch.
        exchange(port, [get('/warm'), { answers: 1 }, line.slice(0, i + 1), line.slice(i + 1)], 60),
      ),
    );
    for (const raw of results) {
      expect(answers(raw).map((s) => [s.url, s.native])).toEqual([
        ['/warm', true],
        ['/split?list=true', false],
      ]);
    }
  });

  it("keeps Node's answers to requests it refuses", async () => {
    const bad = await exchange(port, [get('/ok'), 'FOO /x HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(bad).toMatch(/^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 400 Bad Request\r\n/);
    const unlist = await exchange(port, ['UNLIST /x HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(unlist.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
    const huge = await exchange(port, [
      `GET /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]);
    expect(huge.startsWith('HTTP/1.1 431 Request Header Fields Too Large\r\n')).toBe(true);
    // After a LIST, a refused request is the rewriting path's (the same answer).
    const after = await exchange(port, [list('/l'), 'FOO /x HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(after).toMatch(/^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it('serves many connections at once, listing or not', async () => {
    const runs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        exchange(port, i % 2 ? [get(`/g${i}`), list(`/l${i}`, true)] : [get(`/g${i}`, true)], 5),
      ),
    );
    runs.forEach((raw, i) => {
      const urls = answers(raw).map((s) => s.url);
      expect(urls).toEqual(i % 2 ? [`/g${i}`, `/l${i}?list=true`] : [`/g${i}`]);
    });
  });
});

describe('createServer with a short keep-alive timeout', () => {
  let server: TransitkitServer;
  let port: number;
  beforeAll(async () => {
    server = createServer(echo, { keepAliveTimeout: 100 });
    port = (await server.listen(0)).port;
  });
  afterAll(() => server.close({ drainMs: 100 }));

  it("a slow LIST after an answer is not cut by that answer's keep-alive timeout", async () => {
    // Node waits keepAliveTimeout + 1 s (its buffer) before closing an idle connection.
    const raw = await exchange(port, [get('/a'), list('/slow?delay=1600', true)]);
    expect(answers(raw).map((s) => s.url)).toEqual(['/a', '/slow?list=true&delay=1600']);
  });
});

describe('acceptListMethod on an https server', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-list-switch-'));
  let server: import('node:https').Server;
  let port: number;
  beforeAll(async () => {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
      ...['-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1', '-days', '2'],
    ]);
    server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, echo);
    acceptListMethod(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('switches a TLS connection at its first LIST, answers in order', async () => {
    const open = (p: number) =>
      tlsConnect({ port: p, host: '127.0.0.1', rejectUnauthorized: false }) as unknown as Socket;
    const raw = await exchange(
      port,
      [get('/a'), list('/b'), get('/c?delay=50') + list('/d', true)],
      30,
      open,
      'secureConnect',
    );
    expect(answers(raw).map((s) => [s.url, s.native])).toEqual([
      ['/a', true],
      ['/b?list=true', false],
      ['/c?delay=50', false],
      ['/d?list=true', false],
    ]);
  });
});

describe('acceptListMethod on a server with its own clientError listener', () => {
  let server: Server;
  let port: number;
  const refused: string[] = [];
  beforeAll(async () => {
    server = createHttpServer(echo);
    server.on('clientError', (err: Error & { code?: string }, socket) => {
      refused.push(err.code ?? '');
      socket.end("HTTP/1.1 418 I'm a teapot\r\nConnection: close\r\n\r\n");
    });
    acceptListMethod(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('rewrites from the first byte, so the listener never sees a LIST', async () => {
    const raw = await exchange(port, [get('/a'), list('/b', true)]);
    expect(answers(raw).map((s) => [s.url, s.native])).toEqual([
      ['/a', false],
      ['/b?list=true', false],
    ]);
    expect(refused).toEqual([]);
  });

  it('leaves other refused requests to that listener', async () => {
    const raw = await exchange(port, ['FOO /x HTTP/1.1\r\nHost: x\r\n\r\n']);
    expect(raw.startsWith("HTTP/1.1 418 I'm a teapot\r\n")).toBe(true);
    expect(refused).toEqual(['HPE_INVALID_METHOD']);
  });
});
