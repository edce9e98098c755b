/**
 * A TypeScript consumer of the built package type-checks under every
 * `moduleResolution` a project may use (README "TypeScript"): `node16`
 * (an ESM file and a CommonJS `.cts` file), `bundler`, and the legacy `node10`,
 * which does not read `exports` and relies on package.json `typesVersions`.
 *
 * The package is built here (tsup, the real config) into a temporary
 * `node_modules/transitkit` with the real package.json, so the check needs no
 * earlier `npm run build`; the consumer imports every subpath package.json
 * exports and uses a typed value of each, under `strict`.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../http/helpers.js';

const pkg = JSON.parse(readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  typesVersions?: Record<string, Record<string, string[]>>;
};
const SUBPATHS = Object.keys(pkg.exports).filter((s) => s !== './package.json');
const specifier = (subpath: string) =>
  subpath === '.' ? 'transitkit' : `transitkit/${subpath.slice(2)}`;

// Inside the repository (temp/ is git-ignored), so the package's own dependencies resolve.
const WORK = path.join(ROOT_DIR, 'temp', `consumer-types-${process.pid}`);
const PKG_DIR = path.join(WORK, 'node_modules', 'transitkit');

/** One import of every subpath, and a typed use of each (an `any` would not catch much). */
function consumerSource(): string {
  const imports = SUBPATHS.map((s, i) => `import * as m${i} from '${specifier(s)}';`);
  return [
    ...imports,
    `import { Transit, type TransitOptions } from 'transitkit';`,
    `import { createHandler } from 'transitkit/http';`,
    `import { createServer } from 'transitkit/http/node';`,
    `import { FileStorage } from 'transitkit/adapters/file';`,
    `import { toNodeStream } from 'transitkit/stream/node';`,
    `const options: TransitOptions = { crypto: 'node', prefix: 'vault' };`,
    `export const transit: Transit = new Transit(options);`,
    `export const open: (dir: string) => Promise<FileStorage> = (d) => FileStorage.open(d);`,
    `export const handler: ReturnType<typeof createHandler> | undefined = undefined;`,
    `export const server: typeof createServer = createServer;`,
    `export const sealing: { pipe: unknown } = toNodeStream(transit.encryptStream('k'));`,
    `// @ts-expect-error -- the declarations are real types, not any`,
    `export const wrong: number = transit;`,
    `export const modules = [${SUBPATHS.map((_, i) => `m${i}`).join(', ')}] as const;`,
    '',
  ].join('\n');
}

function typeErrors(files: string[], options: ts.CompilerOptions): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [path.join(ROOT_DIR, 'node_modules', '@types')],
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    ...options,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${path.relative(WORK, d.file.fileName)}:${line + 1}: ${text}`;
  });
}

describe('typesVersions', () => {
  it('maps every exported subpath to its ESM declarations, for node10', () => {
    const map = pkg.typesVersions?.['*'] ?? {};
    const expected = Object.fromEntries(
      SUBPATHS.filter((s) => s !== '.').map((s) => {
        const types = (pkg.exports[s] as { import: { types: string } }).import.types;
        return [s.slice(2), [types]];
      }),
    );
    expect(map).toEqual(expected);
  });
});

describe('a consumer of the built package', () => {
  beforeAll(() => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(PKG_DIR, { recursive: true });
    copyFileSync(path.join(ROOT_DIR, 'package.json'), path.join(PKG_DIR, 'package.json'));
    execFileSync(
      process.execPath,
      [
        path.join(ROOT_DIR, 'node_modules/tsup/dist/cli-default.js'),
        '--out-dir',
        path.join(PKG_DIR, 'dist'),
        '--silent',
      ],
      { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 },
    );
    writeFileSync(path.join(WORK, 'package.json'), '{ "type": "module", "private": true }\n');
    writeFileSync(path.join(WORK, 'consumer.ts'), consumerSource());
    writeFileSync(path.join(WORK, 'consumer.cts'), consumerSource());
  }, 600_000);

  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  it.each([
    ['node16 (ESM)', 'consumer.ts', ts.ModuleKind.Node16, ts.ModuleResolutionKind.Node16],
    [
      'node16 (CommonJS .cts)',
      'consumer.cts',
      ts.ModuleKind.Node16,
      ts.ModuleResolutionKind.Node16,
    ],
    ['nodenext', 'consumer.ts', ts.ModuleKind.NodeNext, ts.ModuleResolutionKind.NodeNext],
    ['bundler', 'consumer.ts', ts.ModuleKind.ESNext, ts.ModuleResolutionKind.Bundler],
    ['node10', 'consumer.ts', ts.ModuleKind.CommonJS, ts.ModuleResolutionKind.Node10],
  ])('type-checks with moduleResolution %s', (_name, file, module, moduleResolution) => {
    expect(typeErrors([path.join(WORK, file)], { module, moduleResolution })).toEqual([]);
  });

  it('node10 without typesVersions cannot see the subpaths (why the map is there)', () => {
    const bare = JSON.parse(readFileSync(path.join(PKG_DIR, 'package.json'), 'utf8'));
    delete bare.typesVersions;
    writeFileSync(path.join(PKG_DIR, 'package.json'), JSON.stringify(bare));
    try {
      const errors = typeErrors([path.join(WORK, 'consumer.ts')], {
        module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10,
      });
      expect(errors.some((e) => e.includes("'transitkit/http'"))).toBe(true);
    } finally {
      copyFileSync(path.join(ROOT_DIR, 'package.json'), path.join(PKG_DIR, 'package.json'));
    }
  });
});
