/**
 * A bad `--mount` or a bad number in `--config` is a usage error like any
 * other bad flag or config value (exit 2, as `--max-request-bytes 0`), and its
 * message names the option the operator wrote. They were checked only by
 * createHandler, after storage was opened (and a new store initialised), and
 * exited 1 with the library's option name (`maxRequestBytes`). A mount under
 * `/v1/sys` or `/v1/auth` is refused too (its ACL paths would be Vault's).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-cli-values-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bad values exit 2 naming what was written', () => {
  it('the flag --max-request-bytes 0 exits 2 (the reference behaviour)', () => {
    const r = runCli(['server', '--dev', '--listen', '127.0.0.1:0', '--max-request-bytes', '0']);
    expect(r.status).toBe(2);
  });

  it.each([
    ['transit'],
    ['/v1/transit/'],
    ['/v1/sys/transit'],
    ['/v1/auth'],
    ['/v1'],
    ['/sys/transit'],
  ])('--mount %s exits 2', (mount) => {
    const r = runCli(['server', '--dev', '--listen', '127.0.0.1:0', '--mount', mount]);
    expect(r.stderr).toMatch(/mount/);
    expect(r.status).toBe(2);
  });

  it.each([
    ['max_request_bytes', '1MB'],
    ['max_request_bytes', 0],
    ['max_stream_bytes', -5],
    ['mount', 'transit'],
  ])('config %s: %j exits 2 and names the config key', (key, value) => {
    const file = join(dir, `${key}-${String(value)}.json`);
    writeFileSync(file, JSON.stringify({ [key]: value }));
    const r = runCli(['server', '--dev', '--listen', '127.0.0.1:0', '--config', file]);
    expect(r.stderr).toContain(key);
    expect(r.status).toBe(2);
  });
});
