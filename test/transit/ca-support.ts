/**
 * A throwaway certificate authority made by the real `openssl` CLI, for tests
 * of set-certificate: PEM files in a temporary directory removed after the
 * test file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'transitkit-certs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
export const file = (content: string): string => {
  const f = path.join(dir, `f${n++}.pem`);
  writeFileSync(f, content);
  return f;
};
export const openssl = (args: string[]): string =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * A throwaway CA made by openssl: its certificate PEM and a function issuing
 * for a CSR (`extra`: more `openssl x509 -req` arguments, e.g. `-force_pubkey`).
 */
export function makeCa(cn: string): {
  pem: string;
  issue: (csrPem: string, extra?: string[]) => string;
} {
  const key = path.join(dir, `ca${n}.key`);
  const cert = path.join(dir, `ca${n++}.pem`);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-subj',
    `/CN=${cn}`,
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
  ]);
  return {
    pem: readFileSync(cert, 'utf8'),
    issue: (csrPem, extra = []) => {
      const out = path.join(dir, `leaf${n++}.pem`);
      openssl([
        'x509',
        '-req',
        '-in',
        file(csrPem),
        '-CA',
        cert,
        '-CAkey',
        key,
        '-CAcreateserial',
        ...extra,
        '-out',
        out,
        '-days',
        '1',
        '-subj',
        '/CN=leaf',
      ]);
      return readFileSync(out, 'utf8');
    },
  };
}
