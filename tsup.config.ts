/**
 * Build: ESM + CJS + declarations (`.d.ts` / `.d.cts`) for every public subpath and for
 * the two crypto backends, and the CLI as ESM only, from the one list in
 * `scripts/entries.mjs`. Two configs, run together by tsup:
 *
 * 1. ESM: every library entry, the backends and the CLI (`bin` runs the ESM file), with
 *    `.d.ts` for the library entries and backends only: the CLI is a program, not an API,
 *    so it ships neither a CommonJS build nor declarations (issue 22: a lean tarball).
 *    Sharing one ESM build keeps the CLI on the library's chunks (no second copy of the core).
 * 2. CJS: the library entries and the backends, with `.d.cts`.
 *
 * Why it is shaped this way:
 * - `#default-backend` stays external. The core imports its backend through that
 *   package-internal specifier and package.json `imports` picks the build by condition
 *   (`node` → backend-node, `default` → backend-noble), so a browser bundler never sees
 *   node:crypto and Node never loads the noble fallback. No build-time file copying
 *   (the jose v4 anti-pattern in style.md C).
 * - `splitting` is on for CJS too (tsup's rollup pass), so code shared by the entries
 *   (e.g. `AeadAuthError`, thrown by a backend and exported by the core) lives in one
 *   chunk: one class per format, and `instanceof` holds across entry points. Code behind a
 *   dynamic `import()` (key pairs, PKI, CSRs, import/export, backup) gets its own chunks,
 *   which a browser bundle fetches only when used (`npm run check:bundle`).
 * - dependencies (`@noble/*`, `@scure/base`, pkijs, the optional `ioredis` and `pg` peers)
 *   are external: tsup leaves out everything in `dependencies` and `peerDependencies`.
 * - `node:` prefixes are kept, so `check-bundle.mjs` and readers see builtins plainly.
 * - No source maps: the output is not minified (names and structure are the sources'),
 *   so stack traces read as they are, and maps were 69 % of the unpacked package while
 *   pointing at `src/` files the package does not ship (issue 22).
 * - `clean` is off because the two configs build into one `dist/` at the same time (each
 *   config's clean would delete the other's files); `npm run build` empties `dist/` first.
 */
import { existsSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';
import { BACKEND_SPECIFIER, PACKAGE_NAME, tsupEntries } from './scripts/entries.mjs';

const all = tsupEntries();
const library = tsupEntries({ bins: false });
const missing = Object.values(all).filter((file) => !existsSync(file));
if (missing.length > 0) {
  throw new Error(`tsup: entry source files missing: ${missing.join(', ')}`);
}

const shared: Options = {
  outDir: 'dist',
  target: 'node20',
  platform: 'node',
  splitting: true,
  treeshake: true,
  sourcemap: false,
  clean: false,
  removeNodeProtocol: false,
  external: [BACKEND_SPECIFIER, PACKAGE_NAME, new RegExp(`^${PACKAGE_NAME}/`)],
};

export default defineConfig([
  { ...shared, entry: all, format: ['esm'], dts: { entry: library } },
  { ...shared, entry: library, format: ['cjs'], dts: { entry: library } },
]);
