import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeAuditDevices } from '../../adapters/audit/index.js';
import { createHandler } from '../../adapters/http/index.js';
import { type AuditFailureInfo, MemoryStorage, TransitNode } from '../../src/index.js';
import { dyingListener, entries, listen, withAuditServer } from './audit-helpers.js';
import { call } from './helpers.js';

let dir: string;
const failures: AuditFailureInfo[] = [];
let node: TransitNode;
let server: { url: string; root: string };

withAuditServer((s) => ({ node, server, dir } = s), failures);

describe('fail closed', () => {
  it('with the only device unable to record, create and rotate are refused and not applied', async () => {
    // A socket device whose listener is gone once it is enabled: every write is refused.
    const listener = await dyingListener();
    expect((await call(server, 'POST', '/v1/transit/keys/rotated')).status).toBe(200);
    const en = await call(server, 'PUT', '/v1/sys/audit/broken', {
      body: {
        type: 'socket',
        options: { address: `127.0.0.1:${listener.port}`, write_timeout: '1s' },
      },
    });
    expect(en.status, en.text).toBe(204);
    await listener.kill();
    failures.length = 0;

    const create = await call(server, 'POST', '/v1/transit/keys/never-made');
    expect(create.status).toBe(500);
    expect(create.json.errors[0]).toBe('internal error');
    const rotate = await call(server, 'POST', '/v1/transit/keys/rotated/rotate');
    expect(rotate.status).toBe(500);
    expect(failures.map((f) => `${f.path} ${f.entry}`)).toEqual([
      'broken/ request',
      'broken/ request',
    ]);

    // Nothing ran: the key was not made, the rotation not applied.
    expect(await node.transit.readKey('never-made').catch((e: Error) => e.message)).toBe(
      'no key named never-made',
    );
    expect((await node.transit.readKey('rotated')).latest_version).toBe(1);

    // A second, working device is enough.
    const file = join(dir, 'second.log');
    await node.audit.enable('second', { type: 'file', options: { file_path: file } });
    expect((await call(server, 'POST', '/v1/transit/keys/rotated/rotate')).status).toBe(200);
    expect((await node.transit.readKey('rotated')).latest_version).toBe(2);
    await node.audit.disable('broken');
    await node.audit.disable('second');
  });

  it('a socket listener that stops reading: requests are refused after write_timeout, never stall', async () => {
    const sockets: import('node:net').Socket[] = [];
    const stuck = createNetServer((sock) => {
      sock.pause(); // accepts, never reads
      sockets.push(sock);
    });
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', r));
    const port = (stuck.address() as { port: number }).port;
    await node.audit.enable('stuck', {
      type: 'socket',
      // log_raw: the entries carry the 1 MiB plaintexts, so the kernel buffers fill fast.
      options: { address: `127.0.0.1:${port}`, write_timeout: '400ms', log_raw: true },
    });
    const plaintext = Buffer.alloc(1024 * 1024, 1).toString('base64');
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(500); i++) {
      const t0 = Date.now();
      const r = await call(server, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext } });
      statuses.push(r.status);
      // Never longer than about two write timeouts (plus the request itself).
      expect(Date.now() - t0).toBeLessThan(3000);
    }
    expect(statuses).toContain(500);
    expect(
      failures.some((f) => f.path === 'stuck/' && f.reason.includes('timed out after 400 ms')),
    ).toBe(true);
    // Once the listener is gone and the device disabled, requests go through again.
    await node.audit.disable('stuck');
    for (const sock of sockets) sock.destroy();
    await new Promise((r) => stuck.close(r));
    expect(
      (await call(server, 'POST', '/v1/transit/encrypt/audited', { body: { plaintext: 'eA==' } }))
        .status,
    ).toBe(200);
  });
});

describe('sys/seal', () => {
  it('logs its request entry before sealing (no response entry: the devices close); unrecorded, it does not seal', async () => {
    const own = new TransitNode({
      storage: new MemoryStorage(),
      rootKey: new Uint8Array(32).fill(9),
      initialRootToken: 'root-token-for-seal-audit',
      audit: { devices: nodeAuditDevices(), logger: { error: () => undefined } },
    });
    await own.start();
    const s = createHttpServer(createHandler(own, { logger: { error: () => undefined } }).node);
    const at = { url: await listen(s), root: 'root-token-for-seal-audit' };
    try {
      // With the only device unable to record: refused, and still unsealed.
      const listener = await dyingListener();
      await own.audit.enable('broken', {
        type: 'socket',
        options: { address: `127.0.0.1:${listener.port}`, write_timeout: '1s' },
      });
      await listener.kill();
      expect((await call(at, 'POST', '/v1/sys/seal')).status).toBe(500);
      expect(own.sealed).toBe(false);
      await own.audit.disable('broken');
      // Recorded: sealed, and the log holds the request.
      const file = join(dir, 'seal.log');
      await own.audit.enable('file', { type: 'file', options: { file_path: file } });
      expect((await call(at, 'POST', '/v1/sys/seal')).status).toBe(204);
      expect(own.sealed).toBe(true);
      const mine = entries(file).filter((e) => e.request.path === 'sys/seal');
      expect(mine.map((e) => `${e.type} ${e.request.operation}`)).toEqual(['request update']);
    } finally {
      await new Promise((r) => s.close(r));
      await own.close();
    }
  });
});
