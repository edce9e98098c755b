#!/usr/bin/env node
/**
 * The core must bundle for a browser or an edge runtime (design.md "Layers"). For every
 * runtime-neutral subpath (`browser: true` in scripts/entries.mjs; today `.`), bundle the
 * built ESM file with esbuild for `platform: 'browser'`, dependencies included, so
 * `#default-backend` resolves through package.json `imports` by the `default` condition
 * (the noble build), as a browser bundler would.
 *
 * Fails (exit 1) when:
 * - any `node:` specifier or Node builtin (`crypto`, `fs`, …) is imported anywhere in the
 *   graph (each is listed with its importer);
 * - the node backend is in the bundle, or the noble backend is not;
 * - esbuild cannot bundle it at all.
 * Prints the minified and gzipped size and the largest inputs.
 *
 * Requires `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BACKENDS, distFiles, entryName, SUBPATHS } from './entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const rel = (p) => path.relative(root, path.resolve(root, p));
const builtins = new Set(builtinModules.filter((name) => !name.startsWith('_')));
const isNodeBuiltin = (specifier) =>
  specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(specifier.split('/')[0]);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Records every Node builtin import (with its importer) and keeps bundling. */
function nodeBuiltinsPlugin(found) {
  return {
    name: 'find-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point' || !isNodeBuiltin(args.path)) return undefined;
        found.push({ specifier: args.path, importer: rel(args.importer) });
        return { path: args.path, external: true };
      });
    },
  };
}

const backendFile = (condition) => {
  const backend = BACKENDS.find((b) => b.condition === condition);
  return backend ? rel(distFiles(backend.entry).import) : undefined;
};
const nodeBackend = backendFile('node');
const browserBackend = backendFile('default');

const problems = [];
for (const { subpath } of SUBPATHS.filter((s) => s.browser)) {
  const entry = rel(distFiles(entryName(subpath)).import);
  if (!existsSync(path.join(root, entry))) {
    problems.push(`${entry} is missing; run \`npm run build\` first`);
    continue;
  }
  const found = [];
  let result;
  try {
    result = await build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
      // Resolve as a consumer would: not through the root tsconfig's `paths` to src/.
      tsconfigRaw: '{}',
      plugins: [nodeBuiltinsPlugin(found)],
    });
  } catch (error) {
    const errors = error.errors?.map((e) => `${e.location?.file ?? ''}: ${e.text}`) ?? [
      error.message,
    ];
    problems.push(`${subpath}: esbuild failed:\n      ${errors.join('\n      ')}`);
    continue;
  }

  for (const { specifier, importer } of found) {
    problems.push(`${subpath}: Node builtin '${specifier}' imported by ${importer}`);
  }
  const inputs = result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].inputs;
  const inputNames = Object.keys(inputs).map((name) => rel(name));
  if (nodeBackend && inputNames.includes(nodeBackend)) {
    problems.push(`${subpath}: the browser bundle contains the node backend (${nodeBackend})`);
  }
  if (browserBackend && !inputNames.includes(browserBackend)) {
    problems.push(
      `${subpath}: the browser bundle does not contain ${browserBackend}; check package.json imports`,
    );
  }

  const code = result.outputFiles[0].contents;
  console.log(
    `${subpath}: ${entry} for the browser: ${kib(code.length)} minified, ${kib(gzipSync(code).length)} gzipped, ${inputNames.length} modules`,
  );
  const byPackage = new Map();
  for (const [name, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(name);
    const key = match ? match[1] : `(transitkit) ${rel(name).split('/').slice(0, 2).join('/')}`;
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    console.log(`  ${kib(bytes).padStart(10)}  ${name}`);
  }
}

if (problems.length > 0) {
  console.error(
    `check-bundle: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
  process.exit(1);
}
console.log('check-bundle: no Node builtins in the browser bundle.');
