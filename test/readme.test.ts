/**
 * Every code block of README.md runs here, as written, so the README cannot
 * drift from the code (issue #22). The convention, for anyone adding a block
 * (README.md's Development section says the same):
 *
 * - ```ts blocks run in document order, each as its own ES module (top-level
 *   await allowed), in this process, with `transitkit` and its subpaths
 *   resolving to the source. A block imports what it uses and declares its
 *   own variables; the only names it may use undeclared are the placeholders
 *   of test/readme/placeholders.ts (`transit`, `storage`, `redisUrl`,
 *   `issueCertificate`, …), each standing for what a reader already has, and
 *   each real here (one engine shared by all blocks, a live redis-server, an
 *   openssl CA…). Before anything runs, every block is type-checked with
 *   tsconfig.json's strict options: an undeclared name that is no
 *   placeholder, or a type error, fails with its README.md line.
 *   Blocks run in a fresh temporary working directory with `PORT=0` in the
 *   environment (so `listen(Number(process.env.PORT ?? 8200))` takes a free
 *   port), and must release what they start (servers, storage, engines).
 *   A block whose placeholder needs a program that is missing (redis-server,
 *   PostgreSQL) is skipped with the reason outside CI, and fails in CI.
 * - ```sh blocks run with `bash -euo pipefail` in a temporary directory,
 *   against one fresh `transitkit server --dev`: its address and root token
 *   are in `VAULT_ADDR` and `VAULT_TOKEN`, and `transitkit` on `PATH` is the
 *   CLI from source.
 * - A block that cannot run here (it starts a long-running server, installs
 *   from the npm registry…) has `<!-- not run: REASON -->` on the line above
 *   its fence; it is listed as a skipped test named with the reason.
 * - ```json blocks must parse; ```text and ```hcl blocks are not code. A
 *   fence with any other language, or with none, fails.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliServer, ROOT_DIR, startDev } from './http/helpers.js';
import { type Block, type BlockFile, extractBlocks, prepareTsBlocks } from './readme/blocks.js';
import { closePlaceholders, MissingTool, readme } from './readme/placeholders.js';

const README = readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
const BLOCKS = extractBlocks(README);
const RUN_LANGS = new Set(['ts', 'sh']);
const PROSE_LANGS = new Set(['text', 'hcl']);
const where = (b: Block) => `README.md:${b.line} (${b.lang})`;

// Under the repository (temp/ is git-ignored), so blocks resolve its node_modules.
mkdirSync(path.join(ROOT_DIR, 'temp'), { recursive: true });
const WORK = mkdtempSync(path.join(ROOT_DIR, 'temp', 'readme-'));
const CWD = process.cwd();
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe('README.md code blocks', () => {
  it('has blocks, each in a known language', () => {
    expect(BLOCKS.filter((b) => b.lang === 'ts').length).toBeGreaterThan(10);
    const unknown = BLOCKS.filter(
      (b) => !RUN_LANGS.has(b.lang) && !PROSE_LANGS.has(b.lang) && b.lang !== 'json',
    );
    expect(unknown.map(where)).toEqual([]);
  });

  for (const b of BLOCKS.filter((x) => x.lang === 'json')) {
    it(`${where(b)} parses`, () => {
      expect(() => JSON.parse(b.code)).not.toThrow();
    });
  }
});

describe('README.md ts blocks', () => {
  const tsBlocks = BLOCKS.filter((b) => b.lang === 'ts' && b.notRun === undefined);
  let prepared: { files: BlockFile[]; problems: string[] } | undefined;
  const fileOf = (b: Block) => prepared?.files.find((f) => f.block === b);

  beforeAll(() => {
    prepared = prepareTsBlocks(tsBlocks, {
      root: ROOT_DIR,
      dir: path.join(WORK, 'ts'),
      placeholders: Object.keys(readme),
    });
    mkdirSync(path.join(WORK, 'cwd'));
    process.chdir(path.join(WORK, 'cwd'));
    process.env.PORT = '0';
  }, 120_000);

  afterAll(async () => {
    process.chdir(CWD);
    delete process.env.PORT;
    await closePlaceholders();
  });

  it('type-check, using only declared placeholders', () => {
    expect(prepared?.problems).toEqual([]);
  });

  it('the checker itself reports undeclared names and type errors with README lines', () => {
    const { files, problems } = prepareTsBlocks(
      [
        { lang: 'ts', line: 10, code: "const n: number = 'text';\nconsole.log(n);" },
        { lang: 'ts', line: 20, code: 'await notDeclaredAnywhere();' },
        { lang: 'ts', line: 30, code: "await storage.put('k', new Uint8Array(1));" },
      ],
      { root: ROOT_DIR, dir: path.join(WORK, 'self-check'), placeholders: Object.keys(readme) },
    );
    expect(problems).toEqual([
      expect.stringMatching(/^README\.md:20: Cannot find name 'notDeclaredAnywhere'/),
      expect.stringMatching(/^README\.md:10: Type 'string' is not assignable to type 'number'/),
    ]);
    expect(files.map((f) => f.placeholders)).toEqual([[], [], ['storage']]);
  }, 120_000);

  for (const b of BLOCKS.filter((x) => x.lang === 'ts')) {
    if (b.notRun !== undefined) {
      it.skip(`${where(b)} not run: ${b.notRun}`, () => {});
      continue;
    }
    it(`${where(b)} runs`, async (ctx) => {
      const f = fileOf(b);
      if (!f) throw new Error(`${where(b)} was not prepared`);
      try {
        await import(pathToFileURL(f.file).href);
      } catch (e) {
        // A placeholder's program (redis-server, PostgreSQL) missing outside CI.
        if (e instanceof MissingTool) ctx.skip(e.message);
        throw e;
      }
    }, 120_000);
  }
});

describe('README.md sh blocks', () => {
  const runnable = BLOCKS.filter((b) => b.lang === 'sh' && b.notRun === undefined);
  let server: CliServer | undefined;
  const bin = path.join(WORK, 'bin');

  beforeAll(async () => {
    if (runnable.length === 0) return;
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    mkdirSync(bin);
    const shim = path.join(bin, 'transitkit');
    const main = path.join(ROOT_DIR, 'adapters/cli/main.ts');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${main}" "$@"\n`);
    chmodSync(shim, 0o755);
    server = await startDev();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  for (const b of BLOCKS.filter((x) => x.lang === 'sh')) {
    if (b.notRun !== undefined) {
      it.skip(`${where(b)} not run: ${b.notRun}`, () => {});
      continue;
    }
    it(`${where(b)} runs`, () => {
      if (!server) throw new Error('no dev server');
      const dir = mkdtempSync(path.join(WORK, 'sh-'));
      const r = spawnSync('bash', ['-euo', 'pipefail', '-c', b.code], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          ...process.env,
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
          TSX_TSCONFIG_PATH: path.join(ROOT_DIR, 'tsconfig.json'),
          VAULT_ADDR: server.url,
          VAULT_TOKEN: server.root,
        },
      });
      expect(
        r.status,
        `${where(b)} exited ${r.status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`,
      ).toBe(0);
    }, 90_000);
  }

  it('every block that is not run says why', () => {
    const silent = BLOCKS.filter((b) => b.notRun !== undefined && b.notRun.length < 10);
    expect(silent.map(where)).toEqual([]);
  });
});
