/**
 * The CLI without a command (help on stderr, exit 2) and its options from the
 * environment: `TRANSITKIT_<OPTION>` for every option of every command (and
 * Vault's `VAULT_ADDR`/`VAULT_TOKEN` as fallbacks where a command declares
 * them), all listed in `--help`, the command line winning. Checked on the
 * parser and on a real `transitkit` process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  applyEnv,
  COMMAND_FLAGS,
  envName,
  helpText,
  parseArgs,
  USAGE,
  UsageError,
  VAULT_CLIENT_ENV,
} from '../../adapters/cli/args.js';
import { call, ROOT_DIR } from '../http/helpers.js';

/** The environment of a child: this process's, without any TRANSITKIT_* or VAULT_* variable. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('TRANSITKIT_') && !k.startsWith('VAULT_')) env[k] = v;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'adapters/cli/main.ts', ...args], {
    cwd: ROOT_DIR,
    encoding: 'utf8',
    timeout: 20_000,
    env: cleanEnv(env),
  });
}

/** Start `transitkit <args>` with `env`; resolves once it prints its URL. */
async function start(args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'adapters/cli/main.ts', ...args], {
    cwd: ROOT_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: cleanEnv(env),
  });
  let out = '';
  let err = '';
  proc.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL: ${out} ${err}`)), 20_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/[^\s]+/.exec(out);
      if (m && /Root Token/.test(out)) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${out} ${err}`));
    });
  });
  const stop = () =>
    new Promise<number | null>((resolve) => {
      proc.once('exit', (code) => resolve(code));
      proc.kill('SIGTERM');
    });
  return { url, out: () => out, stop };
}

describe('no command', () => {
  it('prints the help on stderr and exits 2', () => {
    const r = run([]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no command given');
    expect(r.stderr).toContain('Usage: transitkit');
    expect(r.stderr).toContain('TRANSITKIT_LISTEN');
  });

  it('--help still exits 0 with the help on stdout', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(helpText());
  });
});

describe('options from the environment (parser)', () => {
  it('maps every option to TRANSITKIT_<OPTION>', () => {
    expect(envName('dev-root-token')).toBe('TRANSITKIT_DEV_ROOT_TOKEN');
    expect(
      parseArgs(['server'], {
        TRANSITKIT_DEV: 'true',
        TRANSITKIT_LISTEN: '127.0.0.1:0',
        TRANSITKIT_MAX_REQUEST_BYTES: '1024',
        TRANSITKIT_LEADER_TTL: '20s',
      }),
    ).toEqual({
      kind: 'server',
      args: { dev: true, listen: '127.0.0.1:0', maxRequestBytes: 1024, leaderTtlMs: 20_000 },
    });
  });

  it('lets the command line win, in both flag forms', () => {
    const env = {
      TRANSITKIT_LISTEN: '127.0.0.1:1',
      TRANSITKIT_MOUNT: '/v1/a',
      TRANSITKIT_DEV: '1',
    };
    expect(parseArgs(['server', '--listen', '127.0.0.1:2', '--mount=/v1/b'], env)).toEqual({
      kind: 'server',
      args: { dev: true, listen: '127.0.0.1:2', mount: '/v1/b' },
    });
  });

  it('reads false, 0 and empty values as unset', () => {
    for (const v of ['false', '0', 'FALSE', '']) {
      expect(parseArgs(['server'], { TRANSITKIT_DEV: v, TRANSITKIT_STORAGE: '' })).toEqual({
        kind: 'server',
        args: { dev: false },
      });
    }
  });

  it('TRANSITKIT_KEY_VERSION applies to encrypt and is ignored by decrypt', () => {
    const env = { TRANSITKIT_KEY_VERSION: '2', VAULT_TOKEN: 't' };
    expect(parseArgs(['encrypt', '--key', 'k'], env)).toMatchObject({
      kind: 'stream',
      args: { op: 'encrypt', key: 'k', keyVersion: 2 },
    });
    const decrypt = parseArgs(['decrypt', '--key', 'k'], env);
    expect(decrypt).toMatchObject({ kind: 'stream', args: { op: 'decrypt', key: 'k' } });
    expect(decrypt).not.toHaveProperty('args.keyVersion');
    expect(() => parseArgs(['decrypt', '--key', 'k', '--key-version', '2'], env)).toThrow(
      '--key-version is for encrypt only',
    );
  });

  it('names the variable a bad value came from, never its value', () => {
    expect(() => parseArgs(['server'], { TRANSITKIT_DEV: 'yes please' })).toThrow(
      /^TRANSITKIT_DEV must be true or false$/,
    );
    expect(() => parseArgs(['server'], { TRANSITKIT_MAX_REQUEST_BYTES: '-5' })).toThrow(
      '--max-request-bytes must be a positive integer (from TRANSITKIT_MAX_REQUEST_BYTES)',
    );
    let caught: unknown;
    try {
      parseArgs(['server'], { TRANSITKIT_DEV_ROOT_TOKEN: 's3cr3t-token' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as Error).message).toBe(
      '--dev-root-token needs --dev (from TRANSITKIT_DEV_ROOT_TOKEN)',
    );
  });

  it('reads fallbacks such as VAULT_ADDR and VAULT_TOKEN after TRANSITKIT_<OPTION>', () => {
    const commands = {
      client: {
        value: new Set(['addr', 'token', 'key']),
        boolean: new Set<string>(),
        fallback: VAULT_CLIENT_ENV,
      },
    };
    const vault = { VAULT_ADDR: 'http://v:8200', VAULT_TOKEN: 'hvs.x' };
    expect(applyEnv(['client', '--key', 'k'], vault, commands).argv).toEqual([
      'client',
      '--addr=http://v:8200',
      '--token=hvs.x',
      '--key',
      'k',
    ]);
    const both = { ...vault, TRANSITKIT_ADDR: 'http://t:8200' };
    const { argv, fromEnv } = applyEnv(['client', '--token', 'cli'], both, commands);
    expect(argv).toEqual(['client', '--addr=http://t:8200', '--token', 'cli']);
    expect(fromEnv).toEqual(new Map([['addr', 'TRANSITKIT_ADDR']]));
  });

  it('leaves an unknown command and --help alone', () => {
    expect(applyEnv(['serve'], { TRANSITKIT_DEV: 'true' }).argv).toEqual(['serve']);
    expect(parseArgs(['server', '--help'], { TRANSITKIT_DEV: 'bad' })).toEqual({ kind: 'help' });
  });

  it('--help names the variable of every option of every command', () => {
    const help = helpText();
    for (const [command, spec] of Object.entries(COMMAND_FLAGS)) {
      expect(help).toContain(`  ${command}:`);
      for (const flag of [...spec.value, ...spec.boolean]) {
        expect(help).toContain(envName(flag));
        for (const fallback of spec.fallback?.[flag] ?? []) expect(help).toContain(fallback);
      }
    }
  });

  it('every option the help shows is declared for the environment', () => {
    const declared = new Set(
      Object.values(COMMAND_FLAGS).flatMap((s) => [...s.value, ...s.boolean]),
    );
    const options = helpText().slice(0, helpText().indexOf('\nEnvironment:'));
    expect(options.startsWith(USAGE)).toBe(true);
    const shown = [...options.matchAll(/^ {2}(?:-h, )?--([a-z0-9-]+)/gm)].map(
      (m) => m[1] as string,
    );
    expect(shown.length).toBeGreaterThan(5);
    for (const flag of shown)
      if (flag !== 'help' && flag !== 'version') expect(declared).toContain(flag);
  });
});

describe('options from the environment (a real process)', () => {
  it('starts a dev server configured by TRANSITKIT_* only', async () => {
    const s = await start(['server'], {
      TRANSITKIT_DEV: 'true',
      TRANSITKIT_LISTEN: '127.0.0.1:0',
      TRANSITKIT_DEV_ROOT_TOKEN: 'env-root-token',
      TRANSITKIT_MOUNT: '/v1/kms',
    });
    try {
      const root = { url: s.url, root: 'env-root-token' };
      expect((await call(root, 'POST', '/v1/kms/keys/k')).status).toBe(200);
      expect((await call(root, 'POST', '/v1/transit/keys/k')).status).toBe(404);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('client commands take VAULT_ADDR and VAULT_TOKEN, and TRANSITKIT_* over them', async () => {
    const s = await start(['server'], {
      TRANSITKIT_DEV: 'true',
      TRANSITKIT_LISTEN: '127.0.0.1:0',
      TRANSITKIT_DEV_ROOT_TOKEN: 'client-env-token',
    });
    try {
      await call({ url: s.url, root: 'client-env-token' }, 'POST', '/v1/transit/keys/env-key');
      const input = Buffer.from('streamed through the environment\n'.repeat(1000));
      const enc = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'adapters/cli/main.ts', 'encrypt', '--key', 'env-key'],
        {
          cwd: ROOT_DIR,
          input,
          timeout: 20_000,
          env: cleanEnv({ VAULT_ADDR: s.url, VAULT_TOKEN: 'client-env-token' }),
        },
      );
      expect(enc.status, enc.stderr.toString()).toBe(0);
      expect(enc.stdout.subarray(0, 4).toString()).toBe('TKS1');
      const dec = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'adapters/cli/main.ts', 'decrypt'],
        {
          cwd: ROOT_DIR,
          input: enc.stdout,
          timeout: 20_000,
          env: cleanEnv({
            VAULT_ADDR: 'http://127.0.0.1:9', // loses to TRANSITKIT_ADDR
            VAULT_TOKEN: 'not-a-token', // loses to TRANSITKIT_TOKEN
            TRANSITKIT_ADDR: s.url,
            TRANSITKIT_TOKEN: 'client-env-token',
            TRANSITKIT_KEY: 'env-key',
          }),
        },
      );
      expect(dec.status, dec.stderr.toString()).toBe(0);
      expect(Buffer.compare(dec.stdout, input)).toBe(0);
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });

  it('a bad variable is a usage error naming it (exit 2)', () => {
    const r = run(['server'], { TRANSITKIT_LISTEN: 'nowhere' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('(from TRANSITKIT_LISTEN)');
  });
});
