/**
 * Secrets hygiene (issue 9):
 *
 * - every error path below is triggered with known secrets (a plaintext, a
 *   key's material, a token) in play, and the error's message, stack and
 *   cause, the HTTP response, and everything written to the console (the
 *   handler's default logger) are searched for each secret in raw, base64
 *   and hex form;
 * - tokens are stored only hashed: no storage key or value holds a token;
 * - MACs, tags and tokens are compared in constant time: checked by reading
 *   the source (each comparison of secret bytes goes through the backend's
 *   `timingSafeEqual` or `sameHash`), and every other byte comparison in
 *   src/ is listed with the reason its data is public.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AclPolicyStore, createHandler, TokenStore } from '../../adapters/http/index.js';
import { createServer } from '../../adapters/http/node-server.js';
import { sameHash } from '../../src/auth/token-entry.js';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';
import { REPO_ROOT } from '../helpers/vectors.js';

const PLAINTEXT = 'SECRET-PLAINTEXT-7f3a9c';
const TOKEN = 'hvs.SECRET-TOKEN-5b8e1d';
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const hex = (s: string | Uint8Array) => Buffer.from(s).toString('hex');

/** Every form a secret could leak in. */
function forms(secret: string | Uint8Array): string[] {
  const bytes = typeof secret === 'string' ? Buffer.from(secret) : Buffer.from(secret);
  const out = [b64(bytes), hex(bytes), b64(bytes).replace(/=+$/, ''), bytes.toString('base64url')];
  if (typeof secret === 'string') out.push(secret);
  // Also a distinctive inner part, so a truncated or re-encoded echo is caught.
  out.push(b64(bytes).slice(4, 20));
  return out;
}

/** Console output captured while a block runs (the handler's default logger writes there). */
async function captureConsole<T>(fn: () => Promise<T>): Promise<{ out: string; value: T }> {
  const chunks: string[] = [];
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const saved = methods.map((m) => console[m]);
  const writes = [process.stdout.write, process.stderr.write];
  for (const m of methods) {
    console[m] = (...args: unknown[]) => {
      chunks.push(
        args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack}` : String(a))).join(' '),
      );
    };
  }
  const grab = (chunk: unknown) => {
    chunks.push(String(chunk));
    return true;
  };
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  try {
    const value = await fn();
    return { out: chunks.join('\n'), value };
  } finally {
    methods.forEach((m, i) => {
      console[m] = saved[i] as (typeof console)[typeof m];
    });
    [process.stdout.write, process.stderr.write] = writes as [
      typeof process.stdout.write,
      typeof process.stderr.write,
    ];
  }
}

/** Everything an error exposes: message, stack, cause chain. */
function exposed(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur !== undefined && depth < 5; depth++) {
    if (cur instanceof Error) {
      parts.push(cur.message, cur.stack ?? '', JSON.stringify(cur));
      cur = cur.cause;
    } else {
      parts.push(String(cur));
      cur = undefined;
    }
  }
  return parts.join('\n');
}

const storage = new MemoryStorage();
const transit = new Transit({ storage, autoRotate: false });
let material: Uint8Array;
const leaks: string[] = [];
const checked = { paths: 0 };

function assertClean(where: string, text: string, secrets: readonly string[]): void {
  checked.paths++;
  for (const s of secrets) {
    if (text.includes(s)) leaks.push(`${where}: contains ${s}`);
  }
}

beforeAll(async () => {
  await transit.createKey('exp', { exportable: true, allow_plaintext_backup: true });
  await transit.createKey('derived', { derived: true });
  await transit.createKey('h', { type: 'hmac', key_size: 32 });
  const exported = await transit.exportKey('encryption-key', 'exp', 1);
  material = Buffer.from(Object.values(exported.keys)[0] as string, 'base64');
  expect(material.length).toBe(32);
});
afterAll(() => transit.close());

describe('error paths do not reveal plaintext, key material or tokens', () => {
  it('the search finds a secret hidden in an error cause, in any of its forms', () => {
    const planted = new Error('outer', { cause: new Error(`inner ${b64(material)}`) });
    const found = forms(material).filter((f) => exposed(planted).includes(f));
    expect(found).toContain(b64(material));
    expect(forms(PLAINTEXT).filter((f) => exposed(planted).includes(f))).toEqual([]);
  });

  it('library errors: message, stack and cause', async () => {
    const secrets = [...forms(PLAINTEXT), ...forms(material), ...forms(TOKEN)];
    const ctx = b64('ctx');
    const derivedCt = (
      await transit.encrypt('derived', { plaintext: b64(PLAINTEXT), context: ctx })
    ).ciphertext;
    const { backup } = await transit.backupKey('exp');
    const tamperedBackup = b64(
      Buffer.from(backup, 'base64').toString('utf8').replace('"key":"', '"key":"@@'),
    );
    const mac = (await transit.hmac('h', { input: b64(PLAINTEXT) })).hmac;
    const calls: [string, () => Promise<unknown>][] = [
      ['encrypt raw plaintext', () => transit.encrypt('exp', { plaintext: PLAINTEXT })],
      [
        'encrypt raw context',
        () => transit.encrypt('derived', { plaintext: b64('x'), context: PLAINTEXT }),
      ],
      [
        'encrypt bad nonce',
        () => transit.encrypt('exp', { plaintext: b64(PLAINTEXT), nonce: b64(PLAINTEXT) }),
      ],
      [
        'decrypt wrong context',
        () => transit.decrypt('derived', { ciphertext: derivedCt, context: b64('other') }),
      ],
      [
        'decrypt garbage',
        () => transit.decrypt('exp', { ciphertext: `vault:v1:${b64(PLAINTEXT)}` }),
      ],
      ['decrypt secret string', () => transit.decrypt('exp', { ciphertext: PLAINTEXT })],
      [
        'decrypt key material',
        () => transit.decrypt('exp', { ciphertext: `vault:v1:${b64(material)}` }),
      ],
      [
        'verify hmac raw',
        () => transit.verify('h', { input: b64(PLAINTEXT), hmac: `vault:v1:${PLAINTEXT}` }),
      ],
      [
        'verify hmac other input',
        () => transit.verify('h', { input: b64('other input'), hmac: mac }),
      ],
      ['hmac raw input', () => transit.hmac('h', { input: PLAINTEXT })],
      ['restore tampered backup', () => transit.restoreKey({ backup: tamperedBackup, name: 'r1' })],
      ['restore existing name', () => transit.restoreKey({ backup })],
      ['restore raw material', () => transit.restoreKey({ backup: b64(material), name: 'r2' })],
      [
        'import raw material',
        () =>
          transit.importKey('imp', { type: 'aes256-gcm96', ciphertext: b64(material) } as never),
      ],
      ['export non-exportable', () => transit.exportKey('encryption-key', 'derived')],
      ['export bad version', () => transit.exportKey('encryption-key', 'exp', 99)],
      ['backup not allowed', () => transit.backupKey('derived')],
      ['sign with AEAD key', () => transit.sign('exp', { input: b64(PLAINTEXT) })],
      ['rewrap garbage', () => transit.rewrap('exp', { ciphertext: `vault:v1:${b64(material)}` })],
    ];
    for (const [label, call] of calls) {
      const { out, value } = await captureConsole(() =>
        call().then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      if (label === 'verify hmac other input') {
        // A wrong input is not an error: it simply does not verify.
        expect(value, label).toBeUndefined();
      } else {
        expect(value, `${label} should fail`).toBeInstanceOf(Error);
      }
      assertClean(label, `${exposed(value)}\n${out}`, secrets);
    }
    expect(leaks).toEqual([]);
  });

  it('HTTP errors and the default logger (console)', async () => {
    const httpStorage = new MemoryStorage();
    const t = new Transit({ storage: httpStorage, autoRotate: false });
    const tokens = new TokenStore({ storage: httpStorage, crypto: nodeBackend });
    await tokens.createRoot({ id: TOKEN });
    const handler = createHandler(
      { transit: t, tokens, policies: new AclPolicyStore({ storage: httpStorage }) },
      { maxRequestBytes: 2048 },
    );
    const server = createServer(handler);
    const { url } = await server.listen(0);
    const secrets = [...forms(PLAINTEXT), ...forms(TOKEN)];
    const send = (method: string, p: string, body: string | undefined, token: string) =>
      fetch(url + p, { method, body, headers: { 'x-vault-token': token } }).then(async (r) => {
        const headers: string[] = [];
        r.headers.forEach((v, k) => {
          headers.push(`${k}: ${v}`);
        });
        return { status: r.status, text: `${headers.join('\n')}\n${await r.text()}` };
      });
    try {
      const { out } = await captureConsole(async () => {
        await send('POST', '/v1/transit/keys/k', '{}', TOKEN);
        const cases: [string, string, string | undefined, string][] = [
          ['POST', '/v1/transit/encrypt/k', `{"plaintext": "${PLAINTEXT}"}`, TOKEN],
          ['POST', '/v1/transit/encrypt/k', `{"plaintext": ${PLAINTEXT}}`, TOKEN],
          ['POST', '/v1/transit/encrypt/k', `{"plaintext": "${b64(PLAINTEXT)}"`, TOKEN],
          [
            'POST',
            '/v1/transit/encrypt/k',
            JSON.stringify({ plaintext: b64(PLAINTEXT), bogus: PLAINTEXT }),
            TOKEN,
          ],
          ['POST', '/v1/transit/encrypt/k', `{"plaintext":"${b64(PLAINTEXT).repeat(100)}"}`, TOKEN],
          [
            'POST',
            '/v1/transit/decrypt/k',
            JSON.stringify({ ciphertext: `vault:v1:${b64(PLAINTEXT)}` }),
            TOKEN,
          ],
          [
            'POST',
            '/v1/transit/encrypt/k',
            JSON.stringify({ plaintext: b64(PLAINTEXT) }),
            `${TOKEN}x`,
          ],
          [
            'POST',
            '/v1/transit/encrypt/k',
            JSON.stringify({ plaintext: b64(PLAINTEXT) }),
            TOKEN.slice(0, -1),
          ],
          ['POST', '/v1/auth/token/revoke', JSON.stringify({ token: `${TOKEN}y` }), TOKEN],
          ['GET', '/v1/auth/token/lookup-self', undefined, `${TOKEN}z`],
        ];
        for (const [method, p, body, token] of cases) {
          const r = await send(method, p, body, token);
          // Not errors: an unknown field is a warning (naming the field, never its value),
          // and revoking an unknown token is a 204 (as Vault).
          const warnOnly = body?.includes('"bogus"') === true || p === '/v1/auth/token/revoke';
          expect(r.status, `${method} ${p} ${body}`).toBeGreaterThanOrEqual(warnOnly ? 200 : 400);
          expect(r.status).toBeLessThan(warnOnly ? 300 : 500);
          assertClean(`${method} ${p} ${String(body).slice(0, 40)}`, r.text, secrets);
        }
      });
      assertClean('console during HTTP errors', out, secrets);
      expect(leaks).toEqual([]);
    } finally {
      await server.close({ drainMs: 0 });
      await t.close();
    }
  });

  it('tokens are stored only hashed', async () => {
    const s = new MemoryStorage();
    const tokens = new TokenStore({ storage: s, crypto: nodeBackend });
    await tokens.createRoot({ id: TOKEN });
    const root = await tokens.authenticate(TOKEN);
    if (!root) throw new Error('root token not found');
    const child = (await tokens.create(root, { policies: ['default'] })).client_token;
    const grand = await tokens.authenticate(child);
    if (!grand) throw new Error('child token not found');
    await tokens.create(grand, {});
    const keys = await s.list('');
    expect(keys.length).toBeGreaterThan(2);
    const secrets = [...forms(TOKEN), ...forms(child)];
    for (const key of keys) {
      assertClean(`storage key ${key}`, key, secrets);
      const value = await s.get(key);
      assertClean(`storage value ${key}`, Buffer.from(value ?? []).toString('latin1'), secrets);
    }
    expect(leaks).toEqual([]);
  });
});

describe('constant-time comparisons of MACs, tags and tokens', () => {
  const SRC = path.join(REPO_ROOT, 'src');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = path.join(dir, f);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
    });
  const read = (rel: string) => readFileSync(path.join(SRC, rel), 'utf8');

  it('HMAC verify compares through the backend timingSafeEqual', () => {
    expect(read('transit/hmac.ts')).toMatch(
      /return e\.backend\.timingSafeEqual\(expected, given\)/,
    );
  });

  it('one constant-time compare (util/constant-time.ts): no early exit, the only XOR loop in src/', () => {
    const body =
      /export function constantTimeEqual[\s\S]*?\n}/.exec(read('util/constant-time.ts'))?.[0] ?? '';
    const loop = /for \([^)]*\) ([^\n]*)/.exec(body)?.[1] ?? '';
    expect(loop).toMatch(/diff \|= /);
    expect(loop).not.toMatch(/return|break/);
    const loops = files(SRC)
      .filter((f) => /diff \|= /.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f).split(path.sep).join('/'));
    expect(loops).toEqual(['util/constant-time.ts']);
  });

  it('token lookups compare hashes with sameHash (through constantTimeEqual)', () => {
    const store = read('auth/token-store.ts');
    // Compared once per parsed entry, where entries are read (token-entries.ts;
    // #18: the result is cached with it), and every lookup (authenticate,
    // exists, lookup, create's parent, renew) refuses an entry that failed it.
    expect(read('auth/token-entries.ts')).toMatch(/const own = [^;]*sameHash\(entry\.hash, hash\)/);
    expect(read('auth/token-authenticate.ts')).toMatch(/if \(!found\.own\) return undefined;/);
    // exists(), lookup() and create() read through #liveEntry, which refuses it.
    expect(store).toMatch(
      /async #liveEntry\([^)]*\)[^{]*\{\s*const found = [^;]*;\s*if \(!found\?\.own\) return undefined;/,
    );
    expect(store).toMatch(/async exists\([\s\S]*?#liveEntry\(/);
    expect(read('auth/token-renew.ts')).toMatch(
      /if \(!found\?\.own\) throw invalidRequest\('token not found'\);/,
    );
    const body = /export function sameHash[\s\S]*?\n}/.exec(read('auth/token-entry.ts'))?.[0] ?? '';
    expect(body).toMatch(/return constantTimeEqual\(/);
    expect(sameHash('ab12', 'ab12')).toBe(true);
    expect(sameHash('ab12', 'ab13')).toBe(false);
    expect(sameHash('ab1', 'ab12')).toBe(false);
    expect(sameHash(undefined, 'ab12')).toBe(false);
  });

  it('the backends timingSafeEqual: node:crypto and the core constantTimeEqual', () => {
    expect(read('crypto/node/index.ts')).toMatch(/nodeTimingSafeEqual\(/);
    expect(read('crypto/noble/index.ts')).toMatch(/return constantTimeEqual\(a, b\)/);
    for (const b of [nodeBackend, nobleBackend]) {
      expect(b.timingSafeEqual(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 3))).toBe(true);
      expect(b.timingSafeEqual(Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 4))).toBe(false);
      expect(b.timingSafeEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2, 3))).toBe(false);
    }
  });

  it('AEAD tags are checked inside the primitive (OpenSSL / noble), never by hand', () => {
    for (const f of ['crypto/node/aead.ts', 'crypto/noble/aead.ts']) {
      const src = read(f);
      expect(src, f).not.toMatch(/Buffer\.compare|\.equals\(|\.every\(/);
      expect(src, f).not.toMatch(/tag\w*\[\w+\] (?:!==|===)/);
    }
  });

  it('every other byte-by-byte comparison in src/ is of public data', () => {
    // file → why its comparison may be variable-time.
    const PUBLIC: Record<string, string> = {
      'crypto/rsa-padding.ts':
        'PSS verify: the hash inside a public signature against one computed from public data',
      'crypto/pki/chain.ts': 'certificate chain: compares public keys',
      'keys/vault-backup-entry.ts':
        'restore: an Ed25519 public key derived from the seed against the stored public key',
    };
    const pattern =
      /Buffer\.compare\(|\.equals\(|\.every\(\(\w+, \w+\) => [\w.]+ === [\w.]+\[\w+\]\)|equalBytes\(/;
    const found: string[] = [];
    for (const file of files(SRC)) {
      const rel = path.relative(SRC, file).split(path.sep).join('/');
      if (rel === 'crypto/noble/index.ts') continue; // the timingSafeEqual itself
      if (pattern.test(readFileSync(file, 'utf8'))) found.push(rel);
    }
    expect(found.sort()).toEqual(Object.keys(PUBLIC).sort());
  });
});

afterAll(() => {
  console.log(`secrets hygiene: ${checked.paths} outputs searched, ${leaks.length} leaks`);
});
