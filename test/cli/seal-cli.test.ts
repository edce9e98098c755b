/**
 * `transitkit server` and the seal: `--root-key-file` (auto-unseal) initialises
 * a new file store on first start (generated root token printed once, or
 * `--initial-root-token`) and unseals on every start; without it the server
 * starts uninitialised, then sealed after a restart, and serves 503 until
 * unsealed; a wrong root key is a start-up failure; bad flags are usage
 * errors that never print the key; `--dev` stays initialised and unsealed;
 * Redis storage (a real redis-server) with auto-unseal.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../adapters/cli/args.js';
import { REDIS_SERVER, RedisServer } from '../helpers/redis-server.js';
import { b64, call, startCli, startDev } from '../http/helpers.js';
import { expectRestartKeepsData, runCli } from './support.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'transitkit-seal-cli-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function keyFile(dir: string, content = randomBytes(32).toString('base64')): string {
  const f = join(dir, 'root.key');
  writeFileSync(f, `${content}\n`, { mode: 0o600 });
  return f;
}

const listen = ['--listen', '127.0.0.1:0'];

describe('flags', () => {
  it('parses --root-key-file and --initial-root-token', () => {
    expect(
      parseArgs(['server', '--storage=file:/x', '--root-key-file', '/k', '--initial-root-token=t']),
    ).toEqual({
      kind: 'server',
      args: { dev: false, storage: 'file:/x', rootKeyFile: '/k', initialRootToken: 't' },
    });
    expect(() => parseArgs(['server', '--initial-root-token', 't'])).toThrow(UsageError);
  });

  it('usage errors exit 2 and never echo the key file content', () => {
    const dir = tempDir();
    const shortKey = randomBytes(16).toString('base64');
    const short = keyFile(dir, shortKey);
    const cases: [string[], RegExp][] = [
      [['server', '--storage', `file:${dir}/s`, '--root-key-file', short], /32 random bytes/],
      [['server', '--storage', `file:${dir}/s`, '--root-key-file', `${dir}/none`], /ENOENT/],
      [['server', '--storage', 'memory', '--initial-root-token', 't'], /needs --root-key-file/],
    ];
    for (const [argv, message] of cases) {
      const r = runCli(argv);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr + r.stdout).not.toContain(shortKey);
    }
    expect(runCli(['--help']).stdout).toContain('--root-key-file');
  });
});

describe('auto-unseal with --root-key-file', () => {
  it('initialises on first start (root token printed once), unseals on every start', async () => {
    const dir = tempDir();
    const key = keyFile(dir);
    const args = ['--storage', `file:${join(dir, 'store')}`, '--root-key-file', key, ...listen];
    await expectRestartKeepsData(args, {
      first: (first) => {
        expect(first.stdout()).toContain('Seal: unsealed (auto)');
        expect(first.root).toMatch(/^hvs\./);
      },
      second: async (second) => {
        expect((await call(second, 'GET', '/v1/sys/health', { token: null })).status).toBe(200);
      },
    });
    // Another key cannot open the store: a start-up failure, the key never printed.
    const other = randomBytes(32).toString('base64');
    const wrong = runCli([
      'server',
      '--storage',
      `file:${join(dir, 'store')}`,
      '--root-key-file',
      keyFile(tempDir(), other),
      ...listen,
    ]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/does not open the keyring/);
    expect(wrong.stderr + wrong.stdout).not.toContain(other);
  });

  it('--initial-root-token names the root token of a new store', async () => {
    const dir = tempDir();
    const s = await startCli([
      '--storage',
      `file:${join(dir, 'store')}`,
      '--root-key-file',
      keyFile(dir),
      '--initial-root-token',
      'my-root-token',
      ...listen,
    ]);
    try {
      expect(s.root).toBe('my-root-token');
      expect((await call(s, 'GET', '/v1/auth/token/lookup-self')).json.data.policies).toEqual([
        'root',
      ]);
    } finally {
      await s.stop();
    }
  });
});

describe('without a root key', () => {
  it('starts uninitialised, then sealed after a restart; 503 until unsealed', async () => {
    const dir = tempDir();
    const args = ['--storage', `file:${join(dir, 'store')}`, ...listen];
    const s1 = await startCli(args);
    let keys: string[];
    let root: string;
    try {
      expect(s1.stdout()).toContain('Seal: not initialized (PUT /v1/sys/init)');
      expect(s1.stdout()).not.toContain('Root Token');
      expect((await call(s1, 'GET', '/v1/sys/health', { token: null })).status).toBe(501);
      const init = await call(s1, 'PUT', '/v1/sys/init', {
        token: null,
        body: { secret_shares: 1, secret_threshold: 1 },
      });
      keys = init.json.keys;
      root = init.json.root_token;
      expect((await call(s1, 'GET', '/v1/sys/health', { token: null })).status).toBe(503);
    } finally {
      expect(await s1.stop()).toBe(0);
    }
    const s2 = await startCli(args);
    try {
      expect(s2.stdout()).toContain('Seal: sealed');
      const sealed = await call({ url: s2.url, root }, 'POST', '/v1/transit/keys/k');
      expect(sealed.status).toBe(503);
      await call(s2, 'PUT', '/v1/sys/unseal', { token: null, body: { key: keys[0] } });
      expect((await call({ url: s2.url, root }, 'POST', '/v1/transit/keys/k')).status).toBe(200);
    } finally {
      expect(await s2.stop()).toBe(0);
    }
  });
});

describe('--dev', () => {
  it('is initialised and unsealed in memory, with the given root token', async () => {
    const s = await startDev();
    try {
      expect(s.stdout()).toContain('Seal: unsealed (auto)');
      expect((await call(s, 'GET', '/v1/sys/seal-status', { token: null })).json).toMatchObject({
        initialized: true,
        sealed: false,
        storage_type: 'inmem',
      });
      expect((await call(s, 'GET', '/v1/auth/token/lookup-self')).status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});

describe('--dev on a file store', () => {
  it('initialises with one printed unseal key and unseals; after a restart it is sealed until that key', async () => {
    const dir = tempDir();
    const args = [
      '--dev',
      '--dev-root-token',
      'dev-file-root',
      '--storage',
      `file:${join(dir, 'store')}`,
      ...listen,
    ];
    const first = await startCli(args);
    let unsealKey = '';
    let ct = '';
    try {
      unsealKey = /Unseal Key \(shown once[^)]*\): (\S+)/.exec(first.stdout())?.[1] ?? '';
      expect(Buffer.from(unsealKey, 'base64').length).toBe(32); // one share is the root key, as Vault
      expect(first.stdout()).toContain('Seal: unsealed (shamir)');
      expect(first.root).toBe('dev-file-root');
      ct = (
        await call(first, 'POST', '/v1/transit/encrypt/kept', { body: { plaintext: b64('dev') } })
      ).json.data.ciphertext;
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startCli(args);
    const asRoot = { url: second.url, root: 'dev-file-root' };
    try {
      expect(second.stdout()).toContain('Seal: sealed (PUT /v1/sys/unseal, 1 of 1)');
      expect(second.stdout()).not.toContain('Unseal Key');
      const body = { ciphertext: ct };
      expect((await call(asRoot, 'POST', '/v1/transit/decrypt/kept', { body })).status).toBe(503);
      await call(second, 'PUT', '/v1/sys/unseal', { token: null, body: { key: unsealKey } });
      const d = await call(asRoot, 'POST', '/v1/transit/decrypt/kept', { body });
      expect(d.json.data.plaintext).toBe(b64('dev'));
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});

describe.skipIf(REDIS_SERVER === undefined)('redis storage', () => {
  it('auto-unseals on redis:// and keeps data across restarts', async () => {
    const redis = await RedisServer.start();
    try {
      const args = ['--storage', redis.url, '--root-key-file', keyFile(tempDir()), ...listen];
      const first = await startCli(args);
      expect(first.stdout()).toContain('Storage: redis');
      const ct = (
        await call(first, 'POST', '/v1/transit/encrypt/r', { body: { plaintext: b64('on redis') } })
      ).json.data.ciphertext;
      expect(
        (await call(first, 'GET', '/v1/sys/seal-status', { token: null })).json.storage_type,
      ).toBe('redis');
      expect(await first.stop()).toBe(0);
      const second = await startCli(args);
      try {
        const d = await call(
          { url: second.url, root: first.root },
          'POST',
          '/v1/transit/decrypt/r',
          {
            body: { ciphertext: ct },
          },
        );
        expect(d.json.data.plaintext).toBe(b64('on redis'));
      } finally {
        await second.stop();
      }
    } finally {
      await redis.destroy();
    }
  });
});
