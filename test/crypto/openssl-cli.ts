/**
 * Shared helpers of the tests that check our PKI output with the `openssl`
 * CLI (pki-chain.test.ts, pki-csr.test.ts): a temp folder of numbered files,
 * removed after the file's tests, and an openssl runner that fails loudly.
 * Not a test file (vitest only collects `*.test.ts`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * A fresh temp folder (name starts with `prefix`), removed in `afterAll`;
 * `tmp(content, ext)` writes `content` to a new numbered file in it.
 */
export function tempFiles(prefix: string): {
  dir: string;
  tmp: (content: string | Uint8Array, ext?: string) => string;
} {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let seq = 0;
  const tmp = (content: string | Uint8Array, ext = 'pem'): string => {
    const f = path.join(dir, `f${seq++}.${ext}`);
    writeFileSync(f, content);
    return f;
  };
  return { dir, tmp };
}

/** Run `openssl …args`; throws with its stderr when it exits non-zero. */
export function runOpenssl(...args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}
