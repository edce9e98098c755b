/**
 * Audit devices on real `transitkit server` processes:
 *
 * - SIGHUP reopens the file after a rotation;
 * - SIGTERM while requests are in flight: the server drains and exits 0, and
 *   every request that was answered 200 has both its entries in the file —
 *   whole JSON lines, request before response (no lost or torn entry);
 * - Debian's python3-hvac drives `sys.enable_audit_device`,
 *   `list_enabled_audit_devices`, `calculate_hash` and
 *   `disable_audit_device`; the hash it gets for a known plaintext is the
 *   value in the log, and the plaintext itself is not there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/index.js';
import { eventually } from '../auth/flaky-storage.js';
import { NO_HVAC_REASON, pythonWithHvac, SKIP_HVAC } from '../helpers/tools.js';
import { b64, type CliServer, call, startDev } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-cli-'));
const servers: CliServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const parse = (file: string): AuditEntry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEntry);

describe('transitkit server with a file audit device', () => {
  it('SIGTERM with requests in flight: every answered request has both its entries', async () => {
    const server = await startDev();
    servers.push(server);
    const file = join(dir, 'sigterm.log');
    const en = await call(server, 'PUT', '/v1/sys/audit/file', {
      body: { type: 'file', options: { file_path: file } },
    });
    expect(en.status, en.text).toBe(204);
    expect((await call(server, 'POST', '/v1/transit/keys/k')).status).toBe(200);
    const results = Array.from({ length: 300 }, (_, i) =>
      call(server, 'POST', '/v1/transit/encrypt/k', { body: { plaintext: b64(`m${i}`) } }).catch(
        () => undefined,
      ),
    );
    await new Promise((r) => setTimeout(r, 30));
    const code = await server.stop('SIGTERM');
    expect(code).toBe(0);
    const answered = (await Promise.all(results)).filter((r) => r?.status === 200);
    expect(answered.length).toBeGreaterThan(0);
    const entries = parse(file); // every line whole JSON
    const byId = new Map<string, string[]>();
    for (const e of entries) byId.set(e.request.id, [...(byId.get(e.request.id) ?? []), e.type]);
    for (const r of answered) {
      expect(byId.get(r?.json.request_id), r?.json.request_id).toEqual(['request', 'response']);
    }
  });
});

describe('SIGHUP', () => {
  it('reopens the audit file after a rotation, as Vault', async () => {
    const server = await startDev();
    servers.push(server);
    const file = join(dir, 'rotate.log');
    await call(server, 'PUT', '/v1/sys/audit/file', {
      body: { type: 'file', options: { file_path: file } },
    });
    expect((await call(server, 'POST', '/v1/transit/keys/before')).status).toBe(200);
    renameSync(file, `${file}.1`);
    server.proc.kill('SIGHUP');
    await eventually(async () => {
      await call(server, 'POST', '/v1/transit/keys/after');
      return existsSync(file) && parse(file).some((e) => e.request.path === 'transit/keys/after');
    }, 'entries in the new file');
    expect(parse(`${file}.1`).some((e) => e.request.path === 'transit/keys/before')).toBe(true);
    expect(await server.stop()).toBe(0);
  });
});

if (SKIP_HVAC) it.skip(`hvac audit routes [skipped: ${NO_HVAC_REASON}]`);
describe.skipIf(SKIP_HVAC)('hvac drives the audit routes', () => {
  it('enable_audit_device, list_enabled_audit_devices, calculate_hash match the log', async () => {
    const server = await startDev();
    servers.push(server);
    const file = join(dir, 'hvac.log');
    const script = join(dir, 'audit.py');
    writeFileSync(
      script,
      `
import base64, json, sys
import hvac
url, token, path = sys.argv[1], sys.argv[2], sys.argv[3]
c = hvac.Client(url=url, token=token)
c.sys.enable_audit_device("file", description="hvac", options={"file_path": path}, path="hvac-file")
listed = c.sys.list_enabled_audit_devices()
assert listed["data"]["hvac-file/"]["type"] == "file", listed
assert listed["data"]["hvac-file/"]["options"]["file_path"] == path, listed
pt = base64.b64encode(b"known plaintext for the audit log").decode()
c.secrets.transit.create_key(name="hv")
c.secrets.transit.encrypt_data(name="hv", plaintext=pt)
h = c.sys.calculate_hash(path="hvac-file", input_to_hash=pt)
print(json.dumps({"hash": h["data"]["hash"], "plaintext": pt}))
c.sys.disable_audit_device(path="hvac-file")
assert "hvac-file/" not in c.sys.list_enabled_audit_devices()["data"]
`,
    );
    const out = execFileSync(pythonWithHvac(), [script, server.url, server.root, file], {
      encoding: 'utf8',
    });
    const { hash, plaintext } = JSON.parse(out.trim().split('\n').pop() as string);
    expect(hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const log = readFileSync(file, 'utf8');
    expect(log).not.toContain(plaintext);
    const enc = parse(file).find(
      (e) => e.type === 'request' && e.request.path === 'transit/encrypt/hv',
    );
    expect(enc?.request.data?.plaintext).toBe(hash);
    expect(enc?.request.remote_address).toBe('127.0.0.1');
  });
});
