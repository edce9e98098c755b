/**
 * Four real `transitkit server` processes (`--storage postgres://…`, auto-unseal
 * with one root key file) on one PostgreSQL database, with the default leader
 * lock timing (TTL 10 s, refresh 2.5 s):
 *
 * - one is active (health 200), three are standby (429);
 * - creates and rotations racing on all four lose no version;
 * - a key rotation and an ACL policy change made on one are seen by the
 *   others (their caches dropped through LISTEN/NOTIFY); the time is printed;
 * - a restart of the database server (immediate shutdown: a crash) under a
 *   rotation load loses no acknowledged rotation, and all four carry on;
 * - SIGKILL of the active server: one standby becomes active within 15 s;
 *   the time is printed.
 *
 * Changes are observed by polling over HTTP with generous deadlines; measured
 * times are printed, and only the failover bound is asserted.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_POSTGRES_REASON,
  PostgresServer,
  SKIP_POSTGRES,
} from '../../helpers/postgres-server.js';
import { b64, type CliServer, call, startCli } from '../../http/helpers.js';

const ROOT = `root-${randomBytes(8).toString('hex')}`;
const health = async (s: CliServer): Promise<number> =>
  (await fetch(`${s.url}/v1/sys/health`)).status;

/** Poll `fn` until it returns true or `deadlineMs` passes; the elapsed ms, or undefined. */
async function until(fn: () => Promise<boolean>, deadlineMs: number): Promise<number | undefined> {
  const start = performance.now();
  while (performance.now() - start < deadlineMs) {
    if (await fn()) return Math.round(performance.now() - start);
    await new Promise((r) => setTimeout(r, 20));
  }
  return undefined;
}

if (SKIP_POSTGRES) it.skip(`transitkit server on PostgreSQL [skipped: ${NO_POSTGRES_REASON}]`);

describe.skipIf(SKIP_POSTGRES)('four transitkit servers on one PostgreSQL', () => {
  let db: PostgresServer;
  let dir: string;
  let servers: CliServer[] = [];
  beforeAll(async () => {
    db = await PostgresServer.start();
    dir = mkdtempSync(join(tmpdir(), 'transitkit-pg-cli-'));
    const keyFile = join(dir, 'root.key');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    const args = [
      ...['--storage', db.url, '--root-key-file', keyFile],
      ...['--initial-root-token', ROOT, '--listen', '127.0.0.1:0'],
    ];
    const first = await startCli(args, 60_000); // initialises the store
    const others = await Promise.all([1, 2, 3].map(() => startCli(args, 60_000)));
    servers = [first, ...others].map((s) => ({ ...s, root: ROOT }));
  }, 180_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await db?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const statuses = () => Promise.all(servers.map(health));
  const oneActive = async (list: CliServer[]) => {
    const s = await Promise.all(list.map(health));
    return s.filter((x) => x === 200).length === 1 && s.every((x) => x === 200 || x === 429);
  };

  it('one server is active, the other three standby', async () => {
    expect(await until(() => oneActive(servers), 30_000), String(await statuses())).toBeDefined();
    expect(await statuses()).toEqual([200, 429, 429, 429]); // the first took the lock
    for (const s of servers) {
      const status = await call(s, 'GET', '/v1/sys/seal-status', { token: null });
      expect(status.json).toMatchObject({ sealed: false, storage_type: 'postgresql' });
    }
  });

  it('creates and rotations racing on all four servers lose no version', async () => {
    const names = ['race-a', 'race-b'];
    const creates = names.flatMap((name) =>
      servers.map((s) => call(s, 'POST', `/v1/transit/keys/${name}`, { body: {} })),
    );
    for (const r of await Promise.all(creates)) expect(r.status, r.text).toBeLessThan(300);
    const perServer = 6;
    const rotations = names.flatMap((name) =>
      servers.flatMap((s) =>
        Array.from({ length: perServer }, () =>
          call(s, 'POST', `/v1/transit/keys/${name}/rotate`, { body: {} }),
        ),
      ),
    );
    for (const r of await Promise.all(rotations)) expect(r.status, r.text).toBeLessThan(300);
    const latest = 1 + servers.length * perServer;
    for (const name of names) {
      for (const s of servers) {
        const info = await call(s, 'GET', `/v1/transit/keys/${name}`);
        expect(info.json.data.latest_version).toBe(latest);
        expect(Object.keys(info.json.data.keys).map(Number)).toEqual(
          Array.from({ length: latest }, (_, i) => i + 1),
        );
      }
    }
  }, 120_000);

  it('a rotation and a policy change on one server are seen by the others', async () => {
    const [a, ...others] = servers as [CliServer, ...CliServer[]];
    const encrypt = (s: CliServer, token = ROOT) =>
      call({ url: s.url, root: token }, 'POST', '/v1/transit/encrypt/seen', {
        body: { plaintext: b64('hi') },
      });
    expect((await call(a, 'POST', '/v1/transit/keys/seen', { body: {} })).status).toBe(200);
    for (const s of others) expect((await encrypt(s)).json.data.ciphertext).toMatch(/^vault:v1:/);

    expect((await call(a, 'POST', '/v1/transit/keys/seen/rotate', { body: {} })).status).toBe(200);
    const keyTimes = await Promise.all(
      others.map((s) =>
        until(async () => /^vault:v2:/.test((await encrypt(s)).json.data.ciphertext), 10_000),
      ),
    );
    console.log(`rotation seen by the other servers after ${keyTimes.join(', ')} ms`);
    expect(keyTimes.every((t) => t !== undefined)).toBe(true);

    const allow = 'path "transit/encrypt/seen" { capabilities = ["update"] }';
    expect((await call(a, 'PUT', '/v1/sys/policy/app', { body: { policy: allow } })).status).toBe(
      204,
    );
    const created = await call(a, 'POST', '/v1/auth/token/create', {
      body: { policies: 'app', ttl: '1h' },
    });
    const token = created.json.auth.client_token as string;
    for (const s of others) expect((await encrypt(s, token)).status).toBe(200);

    const deny = 'path "transit/encrypt/other" { capabilities = ["update"] }';
    expect((await call(a, 'PUT', '/v1/sys/policy/app', { body: { policy: deny } })).status).toBe(
      204,
    );
    const policyTimes = await Promise.all(
      others.map((s) => until(async () => (await encrypt(s, token)).status === 403, 10_000)),
    );
    console.log(`policy change seen by the other servers after ${policyTimes.join(', ')} ms`);
    expect(policyTimes.every((t) => t !== undefined)).toBe(true);
  }, 120_000);

  it('a database crash under rotation load loses no acknowledged rotation', async () => {
    expect(
      (await call(servers[0] as CliServer, 'POST', '/v1/transit/keys/load', { body: {} })).status,
    ).toBe(200);
    let acked = 0;
    let failed = 0;
    let stop = false;
    let reachedResolve!: () => void;
    const reached = new Promise<void>((r) => {
      reachedResolve = r;
    });
    const load = servers.map(async (s) => {
      while (!stop) {
        const r = await call(s, 'POST', '/v1/transit/keys/load/rotate', { body: {} }).catch(
          () => undefined,
        );
        if (r !== undefined && r.status < 300) {
          acked++;
          if (acked >= 20) reachedResolve();
        } else failed++;
      }
    });
    await reached;
    await db.stop('immediate');
    const ackedAtCrash = acked;
    await db.restart();
    const resumed = await until(async () => acked >= ackedAtCrash + 20, 60_000);
    stop = true;
    await Promise.all(load);
    console.log(
      `database crash under load: ${acked} rotations acknowledged (${ackedAtCrash} before the crash), ${failed} failed, load resumed ${resumed} ms after the restart`,
    );
    expect(resumed).toBeDefined();
    for (const s of servers) {
      const info = await call(s, 'GET', '/v1/transit/keys/load');
      const latest = info.json.data.latest_version as number;
      // Every acknowledged rotation is there; a failed one may have committed too.
      expect(latest).toBeGreaterThanOrEqual(1 + acked);
      expect(latest).toBeLessThanOrEqual(1 + acked + failed);
      expect(Object.keys(info.json.data.keys).map(Number)).toEqual(
        Array.from({ length: latest }, (_, i) => i + 1),
      );
    }
    expect(await until(() => oneActive(servers), 30_000)).toBeDefined();
  }, 180_000);

  it('SIGKILL of the active server: a standby is active within 15 s', async () => {
    const s = await statuses();
    const active = servers[s.indexOf(200)] as CliServer;
    const survivors = servers.filter((x) => x !== active);
    await active.stop('SIGKILL');
    const ms = await until(
      async () => (await Promise.all(survivors.map(health))).includes(200),
      30_000,
    );
    console.log(`failover after SIGKILL of the active server (default lock TTL 10 s): ${ms} ms`);
    expect(ms).toBeDefined();
    expect(ms as number).toBeLessThanOrEqual(15_000);
    expect(await until(() => oneActive(survivors), 10_000)).toBeDefined();
  }, 120_000);
});
