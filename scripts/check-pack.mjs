#!/usr/bin/env node
/**
 * What `npm pack` would publish (issue 22: a lean tarball), from `npm pack --dry-run --json`:
 *
 * - only `package.json`, `README.md`, `LICENSE`, `CHANGELOG.md`, `SECURITY.md`, the
 *   documentation the README links to (`docs/*.md`, `examples/*.{ts,json}`) and the built
 *   `dist/**` JavaScript (`.js`, `.cjs`) and declarations (`.d.ts`, `.d.cts`): no source
 *   maps, no sources, tests, scripts or temp files;
 * - every relative link of the README names a file (or a folder with files) in the
 *   tarball, so the README a user reads on npm or in node_modules has no dead link;
 * - the CLI as ESM only: no CommonJS build and no declarations under `dist/cli/`;
 * - every file package.json names (`main`, `module`, `types`, `bin`, `exports`, `imports`);
 * - `LICENSE` is the MPL-2.0 text, byte for byte (mozilla.org's `index.txt`, SHA-256 below).
 *
 * Prints the file counts by kind and the packed and unpacked sizes. Exit 1 with one line
 * per problem. Requires `npm run build` first. `packProblems` is the rule set, exported for
 * test/tooling/pack.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** SHA-256 of the MPL-2.0 text as mozilla.org publishes it (16,726 bytes). */
export const MPL_2_0_SHA256 = 'fab3dd6bdab226f1c08630b1dd917e11fcb4ec5e1e020e2c16f83a0a13863e85';

/** Top-level files the tarball carries besides dist/. */
const TOP_LEVEL = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'SECURITY.md']);
/** The documentation the README links to. */
const DOCS = /^(?:docs\/[^/]+\.md|examples\/[^/]+\.(?:ts|json))$/;
const ALWAYS = ['package.json', 'README.md', 'LICENSE'];
const BUILT = /^dist\/.+(?:\.js|\.cjs|\.d\.ts|\.d\.cts)$/;
const CLI = /^dist\/cli\//;

/** Every file path in a (nested) package.json condition object or string. */
function targets(value) {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(targets);
  return [];
}

/**
 * The problems with a tarball's file list, given the package.json it ships.
 * @param {string[]} files paths inside the package (`npm pack --json` `files[].path`)
 * @param {Record<string, any>} pkg
 * @returns {string[]}
 */
export function packProblems(files, pkg) {
  const problems = [];
  const have = new Set(files);
  for (const file of files) {
    if (TOP_LEVEL.has(file) || DOCS.test(file)) continue;
    if (file.endsWith('.map')) {
      problems.push(`${file}: source maps are not shipped`);
    } else if (!BUILT.test(file)) {
      problems.push(`${file}: not a built file (only dist/**/*.{js,cjs,d.ts,d.cts} ship)`);
    } else if (CLI.test(file) && !file.endsWith('.js')) {
      problems.push(`${file}: the CLI ships as ESM only, without a CommonJS build or declarations`);
    }
  }
  for (const file of ALWAYS) {
    if (!have.has(file)) problems.push(`${file} is missing from the tarball`);
  }
  const named = [
    pkg.main,
    pkg.module,
    pkg.types,
    ...targets(pkg.bin),
    ...targets(pkg.exports),
    ...targets(pkg.imports),
  ].filter((f) => typeof f === 'string');
  for (const file of new Set(named.map((f) => f.replace(/^\.\//, '')))) {
    if (!have.has(file)) problems.push(`${file} is named in package.json but not in the tarball`);
  }
  return problems;
}

/**
 * The README's relative links (`](target)`, anchors dropped) that name nothing in the
 * tarball: neither a file nor a folder holding one.
 * @param {string[]} files paths inside the package
 * @param {string} readme the README's text
 * @returns {string[]}
 */
export function readmeLinkProblems(files, readme) {
  const problems = [];
  for (const [, raw] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(?:[a-z]+:|#)/i.test(raw)) continue;
    const target = raw.split('#')[0].replace(/^\.\//, '').replace(/\/$/, '');
    if (target === '' || files.includes(target)) continue;
    if (files.some((f) => f.startsWith(`${target}/`))) continue;
    problems.push(`README links to ${target}, which is not in the tarball`);
  }
  return [...new Set(problems)];
}

/** `npm pack --dry-run --json` of the package at `root`. */
function dryRun(root) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [result] = JSON.parse(out);
  return result;
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

function main() {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const result = dryRun(root);
  const files = result.files.map((f) => f.path);
  const problems = [
    ...packProblems(files, pkg),
    ...readmeLinkProblems(files, readFileSync(path.join(root, 'README.md'), 'utf8')),
  ];
  const license = readFileSync(path.join(root, 'LICENSE'));
  const digest = createHash('sha256').update(license).digest('hex');
  if (digest !== MPL_2_0_SHA256) {
    problems.push(`LICENSE is not the MPL-2.0 text (sha256 ${digest})`);
  }
  if (pkg.license !== 'MPL-2.0') problems.push(`package.json "license" is ${pkg.license}`);

  const kinds = new Map();
  for (const { path: file, size } of result.files) {
    const kind = TOP_LEVEL.has(file)
      ? file
      : (/(\.d\.c?ts|\.c?js|\.map)$/.exec(file)?.[1] ?? path.extname(file));
    const [count, bytes] = kinds.get(kind) ?? [0, 0];
    kinds.set(kind, [count + 1, bytes + size]);
  }
  console.log(
    `npm pack: ${result.filename}, ${result.entryCount} files, ${kib(result.size)} packed, ${kib(result.unpackedSize)} unpacked`,
  );
  for (const [kind, [count, bytes]] of [...kinds].sort((a, b) => b[1][1] - a[1][1])) {
    console.log(`  ${String(count).padStart(4)} × ${kind.padEnd(13)} ${kib(bytes).padStart(10)}`);
  }
  if (problems.length > 0) {
    console.error(
      `check-pack: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.log(
    'check-pack: only built JS and declarations, README (every link in the tarball), LICENSE (MPL-2.0), CHANGELOG, SECURITY, docs and examples; no maps, no CLI CJS or .d.ts.',
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
