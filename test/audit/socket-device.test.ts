/**
 * The `socket` device against real listeners: TCP, Unix and UDP receive one
 * line per entry in order; a refused connection fails the entry and the
 * next write connects again; a TCP listener that stops reading fails the
 * entries after `write_timeout` (it never stalls forever), and a full buffer
 * refuses at once.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { socketAuditDevice } from '../../adapters/audit/index.js';
import type { AuditDevice } from '../../src/index.js';
import { eventually } from '../auth/flaky-storage.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-sock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A stream listener that keeps what it reads; `paused` stops reading. */
async function listener(where: number | string, paused = false) {
  let got = '';
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => {
    sockets.push(s);
    if (paused) s.pause();
    s.on('data', (d: Buffer) => {
      got += d.toString();
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) =>
    typeof where === 'string' ? server.listen(where, r) : server.listen(where, '127.0.0.1', r),
  );
  const a = server.address();
  const close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  cleanup.push(close);
  return {
    port: typeof a === 'object' && a ? a.port : 0,
    got: () => got,
    connections: () => sockets.length,
    close,
  };
}

const device = async (options: Record<string, string>): Promise<AuditDevice> => {
  const d = await socketAuditDevice.create({ path: 'socket/', options });
  cleanup.push(() => d.close().catch(() => undefined));
  return d;
};

describe('socket audit device', () => {
  it('tcp: lines arrive in order on one connection', async () => {
    const l = await listener(0);
    const d = await device({ address: `127.0.0.1:${l.port}` });
    await Promise.all(Array.from({ length: 200 }, (_, i) => d.write(`entry ${i}\n`)));
    await eventually(async () => l.got().split('\n').length === 201, 'every line received');
    expect(l.got()).toBe(Array.from({ length: 200 }, (_, i) => `entry ${i}\n`).join(''));
    expect(l.connections()).toBe(1);
  });

  it('unix: lines arrive', async () => {
    const path = join(dir, 'audit.sock');
    const l = await listener(path);
    const d = await device({ address: path, socket_type: 'unix' });
    await d.write('over unix\n');
    await eventually(async () => l.got() === 'over unix\n', 'line received');
  });

  it('udp: one datagram per entry', async () => {
    const server = createSocket('udp4');
    const got: string[] = [];
    server.on('message', (m) => got.push(m.toString()));
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const d = await device({ address: `127.0.0.1:${server.address().port}`, socket_type: 'udp' });
    await d.write('one\n');
    await d.write('two\n');
    await eventually(async () => got.length === 2, 'two datagrams');
    expect(got).toEqual(['one\n', 'two\n']);
  });

  it('a refused connection fails the entry; the next write connects again', async () => {
    const l = await listener(0);
    const port = l.port;
    await l.close();
    const d = await device({ address: `127.0.0.1:${port}`, write_timeout: '1s' });
    await expect(d.write('lost\n')).rejects.toThrow(/ECONNREFUSED|closed/);
    const back = await listener(port);
    await d.write('recorded\n');
    await eventually(async () => back.got() === 'recorded\n', 'line received after reconnect');
  });

  it('a listener that stops reading fails entries after write_timeout, never stalls', async () => {
    const l = await listener(0, true);
    const d = await device({ address: `127.0.0.1:${l.port}`, write_timeout: '300ms' });
    const big = `${'x'.repeat(1024 * 1024)}\n`;
    const t0 = Date.now();
    const results: Array<PromiseSettledResult<void>> = [];
    // Fill the kernel buffers until a write cannot complete.
    for (let i = 0; i < 64; i++) {
      const [r] = await Promise.allSettled([d.write(big)]);
      results.push(r as PromiseSettledResult<void>);
      if (r?.status === 'rejected') break;
    }
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed, 'a write failed').toBeDefined();
    expect(String(failed.reason)).toContain('timed out after 300 ms');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('with the buffer full, an entry is refused at once', async () => {
    const l = await listener(0, true);
    const d = await device({
      address: `127.0.0.1:${l.port}`,
      write_timeout: '5s',
      buffer_entries: '2',
    });
    const big = `${'y'.repeat(4 * 1024 * 1024)}\n`;
    const pending = [d.write(big), d.write(big), d.write(big)].map((p) => p.catch((e: Error) => e));
    const t0 = Date.now();
    await expect(d.write('one too many\n')).rejects.toThrow('audit buffer full');
    expect(Date.now() - t0).toBeLessThan(100);
    await l.close();
    await Promise.all(pending);
  });

  it('refuses a missing address, a bad type, a bad address or timeout', async () => {
    const bad = async (options: Record<string, string>, text: string) => {
      const e = await socketAuditDevice.create({ path: 's/', options }).catch((x: unknown) => x);
      expect((e as Error).message).toContain(text);
    };
    await bad({}, 'address is required');
    await bad({ address: 'h:1', socket_type: 'sctp' }, 'socket_type');
    await bad({ address: 'no-port' }, 'host:port');
    await bad({ address: 'h:1', write_timeout: 'soon' }, 'write_timeout');
  });
});
