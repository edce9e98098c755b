/**
 * The streaming rows against docs/api.md's "Streaming (large objects)"
 * section, both ways (as routes.test.ts does for the JSON rows): every
 * documented streaming endpoint has a row, every row is documented with
 * each of its query fields, and every field has a description. Then the
 * section's own example: curl's `--upload-file` through encrypt-stream,
 * decrypted by the library.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../adapters/http/routes.js';
import { STREAM_ROUTES } from '../../adapters/http/stream-routes.js';
import { isEndpointSchema } from '../../src/schema.js';
import { key } from './route-support.js';
import { bytes, served, sha256 } from './stream-support.js';

const DOC = new URL('../../docs/api.md', import.meta.url);

function section(): string {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf('\n## Streaming (large objects)\n');
  expect(start, 'docs/api.md has the streaming section').toBeGreaterThan(0);
  return text.slice(start, text.indexOf('\n## ', start + 1));
}

describe('streaming rows vs docs/api.md', () => {
  it('lists exactly the streaming rows, each with its query fields', () => {
    const doc = section();
    const listed = [...doc.matchAll(/^- \*\*[^*]+\*\* `(POST) (\/[^`\s]+)`(.*(?:\n {2}.*)*)/gm)];
    expect(listed.map(([, m, p]) => `${m} ${p}`).sort()).toEqual(STREAM_ROUTES.map(key).sort());
    for (const [, m, p, rest] of listed) {
      const row = STREAM_ROUTES.find((r) => key(r) === `${m} ${p}`);
      for (const field of row?.schema.names ?? [])
        expect(rest, `${p} ${field}`).toContain(`\`${field}\``);
    }
  });

  it('are streaming POST rows with described fields, apart from the JSON table', () => {
    const json = new Set(ROUTES.map(key));
    for (const r of STREAM_ROUTES) {
      expect(r.stream).toBe(true);
      expect(r.method).toBe('POST');
      expect(r.cap).toBe('update');
      expect(json.has(key(r))).toBe(false);
      expect(isEndpointSchema(r.schema)).toBe(true);
      for (const n of r.schema.names) {
        expect(r.schema.fields[n]?.description.length ?? 0).toBeGreaterThan(20);
      }
    }
    expect(ROUTES.every((r) => !r.stream)).toBe(true);
  });

  it("the section's curl example streams a file through encrypt-stream", async () => {
    const curl = spawnSync('curl', ['--version']);
    expect(curl.status, 'curl is installed').toBe(0);
    const s = await served('node-server');
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-curl-'));
    try {
      const plain = bytes(3 * 1024 * 1024 + 1);
      writeFileSync(join(dir, 'backup.tar'), plain);
      // Asynchronously: the server runs in this process.
      const proc = spawn('curl', [
        '-sS',
        '--fail-with-body',
        '-H',
        `X-Vault-Token: ${s.root}`,
        '-H',
        'Content-Type: application/octet-stream',
        '--upload-file',
        join(dir, 'backup.tar'),
        `${s.url}/v1/transit/encrypt-stream/k`,
      ]);
      const chunks: Buffer[] = [];
      let stderr = '';
      proc.stdout.on('data', (c: Buffer) => chunks.push(c));
      proc.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      const code = await new Promise<number | null>((r) => proc.on('close', r));
      expect(code, stderr).toBe(0);
      const out = Buffer.concat(chunks);
      expect(out.subarray(0, 4).toString()).toBe('TKS1');
      const parts: Uint8Array[] = [];
      const opened = new Blob([new Uint8Array(out)])
        .stream()
        .pipeThrough(s.transit.decryptStream('k'));
      for await (const c of opened as unknown as AsyncIterable<Uint8Array>) parts.push(c);
      expect(sha256(Buffer.concat(parts))).toBe(sha256(plain));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await s.close();
    }
  });
});
