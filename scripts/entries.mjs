/**
 * The package's entry points, in one list. `tsup.config.ts`, `api-report.mjs`,
 * `check-exports.mjs` and `check-bundle.mjs` all read it, so a new public subpath
 * is one row in `SUBPATHS` plus its block in package.json `exports` (which
 * `check-exports.mjs` then requires to match the build and an API report).
 *
 * Naming rules, derived from the subpath so that nothing is written twice:
 * - tsup entry (and dist path): `.` → `index`, `./adapters/file` → `adapters/file/index`;
 * - API report: `.` → `etc/transitkit.api.md`, `./adapters/file` → `etc/transitkit-adapters-file.api.md`.
 */

/** The package name (the unscoped base of every API report name). */
export const PACKAGE_NAME = 'transitkit';

/**
 * Public subpaths: package.json `exports` key → source entry file. `browser: true` marks the
 * runtime-neutral ones that check-bundle.mjs bundles for a browser (no Node builtins allowed).
 * @type {ReadonlyArray<{ subpath: string, source: string, browser?: boolean }>}
 */
export const SUBPATHS = [
  { subpath: '.', source: 'src/index.ts', browser: true },
  { subpath: './adapters/file', source: 'adapters/file/index.ts' },
  { subpath: './adapters/redis', source: 'adapters/redis/index.ts' },
  { subpath: './adapters/postgres', source: 'adapters/postgres/index.ts' },
  { subpath: './http', source: 'adapters/http/index.ts' },
  { subpath: './http/node', source: 'adapters/http/node-server.ts' },
  { subpath: './stream/node', source: 'adapters/stream/node.ts' },
  { subpath: './testing', source: 'adapters/testing/index.ts' },
];

/**
 * Executables: package.json `bin` name → tsup entry (dist path) → source. Built with the other
 * entries as ESM only, with no declarations (a `#!` line kept and made executable by tsup);
 * `bin` names the ESM file.
 * @type {ReadonlyArray<{ bin: string, entry: string, source: string }>}
 */
export const BINS = [{ bin: 'transitkit', entry: 'cli/main', source: 'adapters/cli/main.ts' }];

/** The package-internal specifier through which the core imports its default backend. */
export const BACKEND_SPECIFIER = '#default-backend';

/**
 * The builds behind `#default-backend`, keyed by the package.json `imports` condition
 * that selects them: `node` → node:crypto, `default` (browsers, edge, Deno…) → noble.
 * @type {ReadonlyArray<{ entry: string, source: string, condition: string }>}
 */
export const BACKENDS = [
  { entry: 'backend-node', source: 'src/crypto/node/index.ts', condition: 'node' },
  { entry: 'backend-noble', source: 'src/crypto/noble/index.ts', condition: 'default' },
];

/** `.` → `index`; `./adapters/file` → `adapters/file/index`. */
export function entryName(subpath) {
  return subpath === '.' ? 'index' : `${subpath.slice(2)}/index`;
}

/** `.` → `transitkit`; `./adapters/file` → `transitkit-adapters-file`. */
export function reportName(subpath) {
  return subpath === '.'
    ? PACKAGE_NAME
    : `${PACKAGE_NAME}-${subpath.slice(2).replaceAll('/', '-')}`;
}

/** The files tsup writes for one entry, relative to the package root. */
export function distFiles(entry) {
  return {
    import: `./dist/${entry}.js`,
    require: `./dist/${entry}.cjs`,
    importTypes: `./dist/${entry}.d.ts`,
    requireTypes: `./dist/${entry}.d.cts`,
  };
}

/**
 * tsup's `entry` option: every public subpath, every backend and (unless `bins: false`)
 * every executable. Executables are built as ESM only, without declarations (tsup.config.ts).
 */
export function tsupEntries({ bins = true } = {}) {
  const entries = {};
  for (const { subpath, source } of SUBPATHS) entries[entryName(subpath)] = source;
  for (const { entry, source } of BACKENDS) entries[entry] = source;
  if (bins) for (const { entry, source } of BINS) entries[entry] = source;
  return entries;
}
