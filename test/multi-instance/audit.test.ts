/**
 * Audit devices across real instances: two `transitkit server` processes on
 * one redis-server. A device enabled through one is opened by the other
 * through the storage watch, so a request served by either is logged; the
 * same salt serves both (one `sys/audit-hash` value); disabling it through
 * the second stops the first logging.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/index.js';
import { b64, call } from '../http/helpers.js';
import { type Cluster, eventually, startCluster } from './cluster.js';

let cluster: Cluster;
const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-multi-'));
beforeAll(async () => {
  cluster = await startCluster(2);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (file: string): AuditEntry[] => {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEntry);
};

describe('audit devices on two instances', () => {
  it('enabled on A, logs on B; one salt; disabled on B, A stops', async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const file = join(dir, 'shared.log');
    const en = await call(a, 'PUT', '/v1/sys/audit/shared', {
      body: { type: 'file', options: { file_path: file } },
    });
    expect(en.status, en.text).toBe(204);
    expect((await call(a, 'POST', '/v1/transit/keys/multi')).status).toBe(200);
    const plaintext = b64('served by the second instance');
    let id = '';
    await eventually(async () => {
      const r = await call(b, 'POST', '/v1/transit/encrypt/multi', { body: { plaintext } });
      id = r.json?.request_id ?? '';
      return lines(file).some((e) => e.request.id === id && e.type === 'response');
    }, "B's request in the log");
    const hashA = (
      await call(a, 'PUT', '/v1/sys/audit-hash/shared', { body: { input: plaintext } })
    ).json.data.hash;
    const hashB = (
      await call(b, 'PUT', '/v1/sys/audit-hash/shared', { body: { input: plaintext } })
    ).json.data.hash;
    expect(hashB).toBe(hashA);
    expect(lines(file).find((e) => e.request.id === id)?.request.data?.plaintext).toBe(hashA);
    expect((await call(b, 'GET', '/v1/sys/audit')).json.data['shared/'].type).toBe('file');

    expect((await call(b, 'DELETE', '/v1/sys/audit/shared')).status).toBe(204);
    await eventually(async () => {
      const r = await call(a, 'POST', '/v1/transit/encrypt/multi', { body: { plaintext } });
      const before = lines(file).length;
      await new Promise((res) => setTimeout(res, 50));
      return (
        !lines(file).some((e) => e.request.id === r.json.request_id) &&
        lines(file).length === before
      );
    }, 'A stops logging');
  });
});
