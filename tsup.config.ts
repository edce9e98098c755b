/**
 * Build: ESM + CJS + declarations (`.d.ts` / `.d.cts`) for every public subpath and for
 * the two crypto backends, from the one list in `scripts/entries.mjs`.
 *
 * Why it is shaped this way:
 * - `#default-backend` stays external. The core imports its backend through that
 *   package-internal specifier and package.json `imports` picks the build by condition
 *   (`node` → backend-node, `default` → backend-noble), so a browser bundler never sees
 *   node:crypto and Node never loads the noble fallback. No build-time file copying
 *   (the jose v4 anti-pattern in style.md C).
 * - `splitting` is on for CJS too (tsup's rollup pass), so code shared by the entries
 *   (e.g. `AeadAuthError`, thrown by a backend and exported by the core) lives in one
 *   chunk: one class per format, and `instanceof` holds across entry points.
 * - dependencies (`@noble/*`, `@scure/base`, later the optional `ioredis` peer) are
 *   external: tsup leaves out everything in `dependencies` and `peerDependencies`.
 * - `node:` prefixes are kept, so `check-bundle.mjs` and readers see builtins plainly.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { BACKEND_SPECIFIER, PACKAGE_NAME, tsupEntries } from './scripts/entries.mjs';

const entry = tsupEntries();
const missing = Object.values(entry).filter((file) => !existsSync(file));
if (missing.length > 0) {
  throw new Error(`tsup: entry source files missing: ${missing.join(', ')}`);
}

export default defineConfig({
  entry,
  outDir: 'dist',
  format: ['esm', 'cjs'],
  dts: true,
  target: 'node20',
  platform: 'node',
  splitting: true,
  treeshake: true,
  sourcemap: true,
  clean: true,
  removeNodeProtocol: false,
  external: [BACKEND_SPECIFIER, PACKAGE_NAME, new RegExp(`^${PACKAGE_NAME}/`)],
});
