/**
 * What an entry point loads when it is imported: every module reachable from
 * it through static `import` statements (not `import()`, which loads on first
 * use), found from esbuild's metafile over the sources.
 * @module
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The backend `#default-backend` resolves to on each platform (package.json `imports`). */
const BACKEND = {
  node: './src/crypto/node/index.ts',
  browser: './src/crypto/noble/index.ts',
} as const;

/** Paths (relative to the repository) of the modules `entry` loads up front. */
export async function staticallyLoaded(
  entry: string,
  platform: 'node' | 'browser',
): Promise<Set<string>> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    splitting: true,
    outdir: 'out',
    platform,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['transitkit'],
    alias: { '#default-backend': BACKEND[platform] },
  });
  const inputs = result.metafile.inputs;
  const seen = new Set([entry]);
  const queue = [entry];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    for (const i of inputs[path]?.imports ?? []) {
      if (i.kind !== 'import-statement' || i.external || seen.has(i.path)) continue;
      seen.add(i.path);
      queue.push(i.path);
    }
  }
  return seen;
}

/** The loaded modules of `pkg`-like packages (a regular expression over node_modules paths). */
export const loadedFrom = (loaded: Set<string>, pkg: RegExp): string[] =>
  [...loaded].filter((p) => pkg.test(p));
