/**
 * HTTP fuzzing (issue 9): generated requests for every row of the route
 * table against a real `node:http` listener on 127.0.0.1 (the package's Node
 * binding, in-process storage), sent over keep-alive connections.
 *
 * Invariants, checked on every request:
 * - no 5xx, except the status a caller asked for (`partial_failure_response_code`
 *   on a partly failed batch, a health `*code` query parameter);
 * - no unexpected error reaches the handler's logger, and every error body is
 *   Vault's `{"errors": [...]}`;
 * - a rejected request (4xx, other than a partly successful batch) writes
 *   nothing: the storage's change count is the same before and after;
 * - the server keeps answering, and its heap stays bounded.
 *
 * 20,000 cases by default (CI); `FUZZ_LONG=1` runs 1,000,000.
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FuzzServer, settle, startFuzzServer, type WireResponse } from './fuzz-server.js';
import {
  FUZZED_ROWS,
  type FuzzRequest,
  KEY_NAMES,
  PoolRef,
  requestArb,
} from './http-arbitraries.js';

const LONG = process.env.FUZZ_LONG === '1';
const CASES = LONG ? 1_000_000 : 20_000;
const PER_RUN = 50;
const BODY_LIMIT = 64 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

let server: FuzzServer;
/** Values the server returned (ciphertexts, HMACs, signatures, backups, lease ids). */
const pool: string[] = [];
const stats = { sent: 0, byStatus: new Map<number, number>(), rejectedUnchanged: 0 };

function remember(text: string): void {
  const found: string[] = text.match(/vault:v\d+:[A-Za-z0-9+/=_-]+/g) ?? [];
  for (const m of /"backup":"([^"]+)"/.exec(text)?.slice(1) ?? []) found.push(m);
  for (const m of /"lease_id":"([^"]+)"/.exec(text)?.slice(1) ?? []) found.push(m);
  for (const v of found) {
    if (pool.length < 400) pool.push(v);
    else pool[(stats.sent * 7919) % pool.length] = v;
  }
}

function resolve(v: unknown): unknown {
  if (v instanceof PoolRef) return pool.length === 0 ? '' : pool[v.index % pool.length];
  if (Array.isArray(v)) return v.map(resolve);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  }
  return v;
}

function bodyOf(r: FuzzRequest): string | Uint8Array | undefined {
  switch (r.body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return JSON.stringify(resolve(r.body.value));
    case 'raw':
      return r.body.text;
    case 'bytes':
      return r.body.bytes;
    case 'huge':
      return `{"plaintext":"${'A'.repeat(r.body.size)}"}`;
  }
}

/** Statuses the caller explicitly asked for (the only 5xx allowed). */
function requestedStatuses(r: FuzzRequest, body: string | Uint8Array | undefined): Set<number> {
  const out = new Set<number>();
  for (const m of r.query.matchAll(/code=(\d+)/g)) out.add(Number(m[1]));
  if (typeof body === 'string') {
    const m = /"partial_failure_response_code":(\d+)/.exec(body);
    if (m) out.add(Number(m[1]));
  }
  return out;
}

function decodeURIComponentOr(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

async function childToken(): Promise<string> {
  const root = await server.tokens.authenticate(server.root);
  if (!root) throw new Error('the root token is gone');
  return (await server.tokens.create(root, {})).client_token;
}

async function sendOne(r: FuzzRequest): Promise<void> {
  const body = bodyOf(r);
  const url = `/${r.segments.join('/')}${r.query}`;
  const token = r.noToken
    ? null
    : // revoke-self must not revoke the fuzzer's root token: it gets a child of its own.
      r.segments.includes('revoke-self')
      ? await childToken()
      : undefined;
  // Encrypt may upsert its key before the batch items run (as Vault): know whether it existed.
  const upsertName = r.row.startsWith('POST /transit/encrypt/') ? r.segments[3] : undefined;
  const existed =
    upsertName === undefined ||
    (await server.transit.readKey(decodeURIComponentOr(upsertName)).then(
      () => true,
      () => false,
    ));
  await settle();
  const before = server.writes();
  let res: WireResponse;
  try {
    res = await server.send({ method: r.method, url, body, token });
  } catch (e) {
    throw new Error(`${r.method} ${url} (${r.row}): no response: ${(e as Error).message}`);
  }
  await settle();
  stats.sent++;
  stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
  const where = `${r.method} ${url} (${r.row}) body ${String(body).slice(0, 300)} → ${res.status} ${res.text.slice(0, 300)}`;

  expect(server.logged, `unexpected error logged: ${where}`).toEqual([]);
  if (res.status >= 500) {
    expect(requestedStatuses(r, body).has(res.status), `5xx: ${where}`).toBe(true);
  }
  if (res.status >= 400) {
    const parsed = (res.text === '' ? {} : JSON.parse(res.text)) as {
      errors?: unknown;
      data?: { batch_results?: { error?: string }[] };
    };
    const items = parsed.data?.batch_results;
    if (items === undefined) {
      if (r.method !== 'HEAD' && res.text !== '') {
        expect(Array.isArray(parsed.errors), `error body: ${where}`).toBe(true);
      }
      expect(server.writes() - before, `a rejected request wrote to storage: ${where}`).toBe(0);
      stats.rejectedUnchanged++;
    } else if (items.every((i) => i.error)) {
      // Every item failed: nothing may change, except the upsert of a key that did not exist.
      if (existed) {
        expect(server.writes() - before, `a failed batch wrote to storage: ${where}`).toBe(0);
        stats.rejectedUnchanged++;
      }
    } else {
      // Some items succeeded (the partial-failure status): only encrypt/decrypt batches.
      expect(r.row, where).toMatch(/^POST \/transit\/(encrypt|decrypt)\//);
    }
  }
  if (res.status < 300) remember(res.text);
}

async function seed(s: FuzzServer): Promise<void> {
  const t = s.transit;
  await t.createKey('fz-aes', { exportable: true, allow_plaintext_backup: true });
  await t.createKey('fz-derived', { derived: true, convergent_encryption: true });
  await t.createKey('fz-chacha', { type: 'chacha20-poly1305' });
  await t.createKey('fz-ed', { type: 'ed25519' });
  await t.createKey('fz-ec', { type: 'ecdsa-p256' });
  await t.createKey('fz-rsa', { type: 'rsa-2048' });
  await t.createKey('fz-hmac', { type: 'hmac', key_size: 32 });
  const pt = Buffer.from('fuzz').toString('base64');
  const ctx = Buffer.from('ctx').toString('base64');
  for (const k of ['fz-aes', 'fz-chacha'])
    pool.push((await t.encrypt(k, { plaintext: pt })).ciphertext);
  pool.push((await t.encrypt('fz-derived', { plaintext: pt, context: ctx })).ciphertext);
  for (const k of ['fz-aes', 'fz-hmac']) pool.push((await t.hmac(k, { input: pt })).hmac);
  for (const k of ['fz-ed', 'fz-ec', 'fz-rsa'])
    pool.push((await t.sign(k, { input: pt })).signature);
  pool.push((await t.backupKey('fz-aes')).backup);
}

beforeAll(async () => {
  server = await startFuzzServer({
    maxRequestBytes: BODY_LIMIT,
    transit: { maxBatchSize: 50 },
  });
  await seed(server);
});

afterAll(async () => {
  await server?.close();
});

describe(`HTTP fuzzing: ${CASES.toLocaleString('en')} generated requests over keep-alive`, () => {
  it('covers every row of the route table', () => {
    expect(FUZZED_ROWS.length).toBeGreaterThan(40);
    expect(KEY_NAMES).toContain('fz-rsa');
  });

  it(
    'never answers 5xx, never logs an unexpected error, and a rejected request changes nothing',
    async () => {
      const heapBefore = heap();
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(
          fc.array(requestArb, { minLength: PER_RUN, maxLength: PER_RUN }),
          async (reqs) => {
            for (const r of reqs) await sendOne(r);
          },
        ),
        { numRuns: CASES / PER_RUN, endOnFailure: LONG },
      );
      const seconds = (Date.now() - started) / 1000;
      const grew = heap() - heapBefore;
      // Still answering after everything.
      const health = await server.send({ method: 'GET', url: '/v1/sys/health' });
      expect(health.status).toBe(200);
      const statuses = [...stats.byStatus].sort(([a], [b]) => a - b);
      console.log(
        `HTTP fuzz: ${stats.sent} requests in ${seconds.toFixed(1)} s; statuses ${statuses
          .map(([s, n]) => `${s}×${n}`)
          .join(
            ' ',
          )}; ${stats.rejectedUnchanged} rejected requests checked for no state change; heap +${(grew / 1048576).toFixed(1)} MiB`,
      );
      expect(stats.sent).toBeGreaterThanOrEqual(CASES);
      // Some of each kind of outcome, so that the run exercised both paths.
      expect(stats.byStatus.get(200) ?? 0).toBeGreaterThan(CASES / 50);
      expect(stats.byStatus.get(400) ?? 0).toBeGreaterThan(CASES / 50);
      expect(stats.byStatus.get(413) ?? 0).toBeGreaterThan(0);
      // Bounded: the store grows with created keys/versions/tokens, not with requests.
      expect(grew).toBeLessThan((LONG ? 512 : 96) * 1024 * 1024);
    },
    LONG ? 24 * 3600_000 : 180_000,
  );
});
