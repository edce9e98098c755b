#!/usr/bin/env node
/**
 * Checks that package.json, tsup.config.ts, dist/ and etc/ agree with the one list of entry
 * points in scripts/entries.mjs (jose `tools/check-subpaths.js`, hono `validate-exports.ts`):
 *
 * - `exports` has exactly the public subpaths (+ `./package.json`), each
 *   `{ import: { types, default }, require: { types, default } }` naming tsup's output;
 *   `main` / `module` / `types` name the `.` build; `files` ships dist/;
 * - tsup.config.ts builds every subpath and every backend (its resolved `entry` option);
 * - every file named by `exports` and `imports` exists in dist/ (after `npm run build`);
 * - every subpath has `etc/<report>.api.md`, and etc/ has no report for a removed subpath;
 * - `imports['#default-backend']` maps `node` → backend-node, `default` → backend-noble,
 *   each exporting `defaultBackend`; on Node the core resolves it to the `node` build;
 * - ESM and CJS builds of each subpath load and export the same names.
 *
 * Exit 1 with one line per problem. Requires `npm run build` first.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import {
  BACKEND_SPECIFIER,
  BACKENDS,
  distFiles,
  entryName,
  PACKAGE_NAME,
  reportName,
  SUBPATHS,
} from './entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const problems = [];
const fail = (message) => problems.push(message);
const exists = (file) => existsSync(path.join(root, file));

/** The condition object tsup's output names for one entry. */
function conditionsFor(entry) {
  const f = distFiles(entry);
  return {
    import: { types: f.importTypes, default: f.import },
    require: { types: f.requireTypes, default: f.require },
  };
}

/** Every file path in a (nested) condition object. */
function targets(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

/** tsup.config.ts's `entry`, as tsup itself resolves it (bundled with esbuild, then imported). */
async function tsupEntry() {
  const outfile = path.join(root, 'temp', 'check-exports', 'tsup.config.mjs');
  mkdirSync(path.dirname(outfile), { recursive: true });
  const result = await build({
    entryPoints: [path.join(root, 'tsup.config.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  // The bundled config imports scripts/entries.mjs by absolute path; keep it importable.
  writeFileSync(outfile, result.outputFiles[0].text);
  const config = (await import(pathToFileURL(outfile).href)).default;
  const configs = typeof config === 'function' ? await config({}) : config;
  return Object.assign({}, ...[configs].flat().map((c) => c.entry ?? {}));
}

// --- package.json exports / top-level fields --------------------------------------------
const expectedKeys = [...SUBPATHS.map(({ subpath }) => subpath), './package.json'].sort();
const actualKeys = Object.keys(pkg.exports ?? {}).sort();
if (!isDeepStrictEqual(actualKeys, expectedKeys)) {
  fail(
    `package.json exports keys are [${actualKeys.join(', ')}], scripts/entries.mjs says [${expectedKeys.join(', ')}]`,
  );
}
if (pkg.exports?.['./package.json'] !== './package.json') {
  fail(`exports['./package.json'] must be './package.json'`);
}
for (const { subpath } of SUBPATHS) {
  const expected = conditionsFor(entryName(subpath));
  const actual = pkg.exports?.[subpath];
  if (!isDeepStrictEqual(actual, expected)) {
    fail(
      `exports['${subpath}'] is ${JSON.stringify(actual)}; expected ${JSON.stringify(expected)}`,
    );
  }
}
const main = distFiles(entryName('.'));
for (const [field, file] of [
  ['main', main.require],
  ['module', main.import],
  ['types', main.importTypes],
]) {
  if (pkg[field] !== file) fail(`package.json "${field}" is ${pkg[field]}; expected ${file}`);
}
if (!pkg.files?.includes('dist')) fail('package.json "files" must include "dist"');
if (pkg.sideEffects !== false) fail('package.json "sideEffects" must be false');
if (pkg.name !== PACKAGE_NAME) fail(`package.json "name" is ${pkg.name}; expected ${PACKAGE_NAME}`);

// --- imports: #default-backend ----------------------------------------------------------
const backendMap = pkg.imports?.[BACKEND_SPECIFIER];
const expectedBackendMap = Object.fromEntries(
  BACKENDS.map(({ entry, condition }) => [condition, conditionsFor(entry)]),
);
// Key order matters: Node takes the first matching condition, so `node` must precede `default`.
if (
  !isDeepStrictEqual(backendMap, expectedBackendMap) ||
  Object.keys(backendMap).join() !== Object.keys(expectedBackendMap).join()
) {
  fail(
    `imports['${BACKEND_SPECIFIER}'] is ${JSON.stringify(backendMap)}; expected ${JSON.stringify(expectedBackendMap)}`,
  );
}

// --- tsup entries -----------------------------------------------------------------------
try {
  const entry = await tsupEntry();
  const wanted = [
    ...SUBPATHS.map(({ subpath, source }) => [entryName(subpath), source]),
    ...BACKENDS.map(({ entry: name, source }) => [name, source]),
  ];
  for (const [name, source] of wanted) {
    if (entry[name] !== source) {
      fail(`tsup.config.ts entry '${name}' is ${entry[name]}; expected ${source}`);
    }
  }
} catch (error) {
  fail(`cannot load tsup.config.ts: ${error.message}`);
}

// --- dist files -------------------------------------------------------------------------
const built = [
  ...SUBPATHS.flatMap(({ subpath }) => targets(pkg.exports?.[subpath])),
  ...targets(backendMap),
];
const missingBuilds = built.filter((file) => !exists(file));
for (const file of missingBuilds) fail(`${file} is named in package.json but was not built`);

// --- API reports ------------------------------------------------------------------------
const reports = new Set(SUBPATHS.map(({ subpath }) => `${reportName(subpath)}.api.md`));
for (const report of reports) {
  if (!exists(`etc/${report}`)) {
    fail(`etc/${report} is missing; run \`npm run build && npm run api:update\``);
  }
}
const etc = path.join(root, 'etc');
for (const file of existsSync(etc) ? readdirSync(etc) : []) {
  if (file.endsWith('.api.md') && !reports.has(file)) {
    fail(`etc/${file} belongs to no exports subpath; delete it`);
  }
}

// --- the builds load --------------------------------------------------------------------
if (missingBuilds.length === 0) {
  const require = createRequire(import.meta.url);
  for (const { subpath } of SUBPATHS) {
    const specifier = subpath === '.' ? PACKAGE_NAME : `${PACKAGE_NAME}/${subpath.slice(2)}`;
    try {
      const esm = Object.keys(await import(specifier)).sort();
      const cjs = Object.keys(require(specifier))
        .filter((k) => k !== '__esModule' && k !== 'default')
        .sort();
      if (!isDeepStrictEqual(esm, cjs)) {
        fail(`${specifier}: ESM exports [${esm}] differ from CJS exports [${cjs}]`);
      } else if (esm.length === 0) {
        fail(`${specifier}: exports nothing`);
      }
    } catch (error) {
      fail(`${specifier} does not load: ${error.message}`);
    }
  }
  for (const { entry } of BACKENDS) {
    for (const file of [distFiles(entry).import, distFiles(entry).require]) {
      try {
        const mod = file.endsWith('.cjs')
          ? require(path.join(root, file))
          : await import(pathToFileURL(path.join(root, file)).href);
        if (!mod.defaultBackend) fail(`${file} does not export defaultBackend`);
      } catch (error) {
        fail(`${file} does not load: ${error.message}`);
      }
    }
  }
  // Dual package hazard (issue 22): an error thrown by the CJS build passes the ESM build's
  // guard and `instanceof`, and the reverse (TransitError is branded with Symbol.for).
  try {
    const cjsCore = require(PACKAGE_NAME);
    const esmCore = await import(PACKAGE_NAME);
    if (cjsCore.TransitError === esmCore.TransitError) {
      fail('dual package check: the CJS and ESM builds share one TransitError class?');
    }
    for (const [fromName, from, toName, to] of [
      ['CJS', cjsCore, 'ESM', esmCore],
      ['ESM', esmCore, 'CJS', cjsCore],
    ]) {
      const transit = new from.Transit();
      let thrown;
      try {
        await transit.decrypt('missing', { ciphertext: 'vault:v1:AAAA' });
      } catch (error) {
        thrown = error;
      } finally {
        await transit.close();
      }
      if (!to.isTransitError(thrown, thrown?.code) || !(thrown instanceof to.TransitError)) {
        fail(
          `dual package: an error thrown by the ${fromName} build fails the ${toName} build's isTransitError/instanceof`,
        );
      }
      if (to.isTransitError(new Error('x')) || new Error('x') instanceof to.TransitError) {
        fail(`dual package: the ${toName} build takes a plain Error for a TransitError`);
      }
    }
  } catch (error) {
    fail(`dual package check failed to run: ${error.message}`);
  }
  // This script lives inside the package, so it resolves `#default-backend` as the core does.
  const node = BACKENDS.find(({ condition }) => condition === 'node');
  const resolved = path.relative(root, fileURLToPath(import.meta.resolve(BACKEND_SPECIFIER)));
  if (node && `./${resolved}` !== distFiles(node.entry).import) {
    fail(
      `on Node, ${BACKEND_SPECIFIER} resolves to ./${resolved}, not ${distFiles(node.entry).import}`,
    );
  }
}

if (problems.length > 0) {
  console.error(
    `check-exports: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(
  `check-exports: ${SUBPATHS.length} subpath(s) [${SUBPATHS.map(({ subpath }) => subpath).join(', ')}] and ${BACKENDS.length} backend(s) agree across package.json, tsup.config.ts, dist/ and etc/.`,
);
