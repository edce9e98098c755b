#!/usr/bin/env node
/**
 * The core must bundle for a browser or an edge runtime (design.md "Layers"), small and
 * without side effects on globals (issue 22, "the edge build").
 *
 * 1. For every runtime-neutral subpath (`browser: true` in scripts/entries.mjs; today `.`),
 *    bundle the built ESM file with esbuild for `platform: 'browser'`, dependencies
 *    included, so `#default-backend` resolves through package.json `imports` by the
 *    `default` condition (the noble build), as a browser bundler would. Fails when any
 *    `node:` specifier or Node builtin (`crypto`, `fs`, …) is imported anywhere in the
 *    graph (each is listed with its importer), when the node backend is in the bundle or
 *    the noble backend is not, or when esbuild cannot bundle it.
 * 2. The edge build: a consumer module that does `import { Transit } from 'transitkit'`
 *    and uses it for symmetric encryption (create, encrypt, decrypt, HMAC, verify), bundled
 *    for the browser, minified. Its eager part (everything but what `import()` loads on
 *    demand: key pairs, PKI, CSRs, import/export, backup) must stay within
 *    {@link EDGE_BUDGET_GZIP} gzipped, and the symmetric use must run without loading any
 *    on-demand chunk (so the budget is all it downloads). The lazy chunks are reported too.
 * 3. No global touched: the edge bundle, and a bundle that also loads every lazy chunk
 *    (signs with Ed25519, ECDSA and RSA keys, reads their PEM public keys and signs a CSR),
 *    each run in a fresh `vm` context that has only a browser's globals (no `Buffer`, no
 *    `process`); the own keys of `globalThis` and of the built-in objects and prototypes
 *    (`Reflect`, `Object.prototype`, …) must be the same after as before. This is what
 *    `"sideEffects": false` promises (a `Reflect.getMetadata` polyfill used to break it).
 *
 * Prints sizes and the largest inputs. Exit 1 with one line per problem.
 * Requires `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BACKENDS, distFiles, entryName, PACKAGE_NAME, SUBPATHS } from './entries.mjs';

/**
 * The edge build's budget: the eager part of a browser bundle of `Transit` for symmetric
 * use, minified and gzipped (issue 22: ≤ 40 KB; it was 196 KB before PKI, RSA and CSR code
 * moved behind `import()`).
 */
export const EDGE_BUDGET_GZIP = 40 * 1024;

const root = fileURLToPath(new URL('..', import.meta.url));
const rel = (p) => path.relative(root, path.resolve(root, p));
const builtins = new Set(builtinModules.filter((name) => !name.startsWith('_')));
const isNodeBuiltin = (specifier) =>
  specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(specifier.split('/')[0]);
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** esbuild options of every browser bundle checked here (the format and input vary). */
const BROWSER_BUILD = {
  absWorkingDir: root,
  bundle: true,
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  metafile: true,
  logLevel: 'silent',
  // Resolve as a consumer would: not through the root tsconfig's `paths` to src/.
  tsconfigRaw: '{}',
};

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
      ...BROWSER_BUILD,
      entryPoints: [entry],
      format: 'esm',
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
  printLargest(inputs, 8);
}

// --- the edge build -----------------------------------------------------------------------

/** What a symmetric-only consumer does: every call is checked, so a broken bundle fails. */
const SYMMETRIC_USE = `
import { Transit, isTransitError } from '${PACKAGE_NAME}';
export async function run() {
  const transit = new Transit();
  await transit.createKey('orders');
  const { ciphertext } = await transit.encrypt('orders', { plaintext: btoa('hello edge') });
  const { plaintext } = await transit.decrypt('orders', { ciphertext });
  if (atob(plaintext) !== 'hello edge') throw new Error('decrypt gave ' + plaintext);
  const { hmac } = await transit.hmac('orders', { input: btoa('body') });
  const { valid } = await transit.verify('orders', { input: btoa('body'), hmac });
  if (!valid) throw new Error('hmac did not verify');
  try {
    await transit.decrypt('orders', { ciphertext: ciphertext.slice(0, -4) + 'AAAA' });
    throw new Error('a tampered ciphertext decrypted');
  } catch (e) {
    if (!isTransitError(e, 'invalid_request')) throw e;
  }
  await transit.close();
  return transit.backendName;
}
`;

/** The symmetric use, then key pairs: loads the PKI, curve, RSA and CSR chunks. */
const EVERY_CHUNK_USE = `${SYMMETRIC_USE.replace('export async function run', 'async function symmetric')}
export async function run() {
  const backend = await symmetric();
  const transit = new Transit();
  for (const type of ['ed25519', 'ecdsa-p256', 'rsa-2048', 'mldsa-44']) {
    await transit.createKey(type, { type });
    const { signature } = await transit.sign(type, { input: btoa('message') });
    const { valid } = await transit.verify(type, { input: btoa('message'), signature });
    if (!valid) throw new Error(type + ' signature did not verify');
    const pem = (await transit.readKey(type)).keys['1'].public_key;
    if (!String(pem).includes('BEGIN PUBLIC KEY') && type !== 'ed25519') throw new Error(type + ' public key: ' + pem);
  }
  const { csr } = await transit.signCsr('ecdsa-p256', {});
  if (!csr.startsWith('-----BEGIN CERTIFICATE REQUEST-----')) throw new Error('csr: ' + csr);
  await transit.close();
  return backend;
}
`;

/** Bundle `source` (a consumer module) for the browser; `lazy` says what `import()` does. */
async function bundleConsumer(source, { lazy, format }) {
  const plugins = [
    {
      name: 'consumer',
      setup(b) {
        // The package as a consumer resolves it: its built ESM entry (then package.json).
        b.onResolve({ filter: new RegExp(`^${PACKAGE_NAME}$`) }, () => ({
          path: path.join(root, distFiles(entryName('.')).import),
        }));
        if (lazy === 'external') {
          // What `import()` loads stays out (and cannot load in the vm: see globalsTouched).
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
          );
        }
      },
    },
  ];
  return build({
    ...BROWSER_BUILD,
    stdin: { contents: source, resolveDir: root, sourcefile: 'edge-consumer.mjs', loader: 'js' },
    format,
    ...(lazy === 'split' ? { splitting: true, outdir: path.join(root, 'temp', 'edge') } : {}),
    plugins,
  });
}

/** The own keys of globalThis and of the built-ins a polyfill would patch. */
const WATCHED = `[
  ['globalThis', globalThis], ['Reflect', Reflect], ['Object', Object],
  ['Object.prototype', Object.prototype], ['Function.prototype', Function.prototype],
  ['Array.prototype', Array.prototype], ['String.prototype', String.prototype],
  ['Promise', Promise], ['Promise.prototype', Promise.prototype], ['Symbol', Symbol],
  ['Uint8Array.prototype', Uint8Array.prototype], ['Math', Math], ['JSON', JSON],
  ['Error', Error], ['Map.prototype', Map.prototype], ['BigInt.prototype', BigInt.prototype],
].map(([name, o]) => [name, Reflect.ownKeys(o).map(String).sort().join(',')])`;

/**
 * Run a CJS bundle's `run()` in a fresh context with a browser's globals only, and list
 * the built-ins whose own keys changed. The host's `crypto` (WebCrypto) serves
 * getRandomValues and, for RSA, subtle.
 */
async function globalsTouched(code) {
  const context = vm.createContext({
    crypto: globalThis.crypto,
    TextEncoder,
    TextDecoder,
    atob,
    btoa,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    structuredClone,
    TransformStream,
    ReadableStream,
    WritableStream,
    Blob,
    console,
  });
  const before = vm.runInContext(WATCHED, context);
  const module = { exports: {} };
  vm.runInContext(`(function (module, exports) {\n${code}\n})`, context)(module, module.exports);
  const backend = await module.exports.run();
  const after = vm.runInContext(WATCHED, context);
  const changed = before
    .filter(([name, keys], i) => after[i][0] !== name || after[i][1] !== keys)
    .map(([name, keys], i) => {
      const was = new Set(keys.split(','));
      const now = after[i][1].split(',');
      return `${name} (+${now.filter((k) => !was.has(k)).join(', +') || 'nothing'})`;
    });
  return { backend, changed };
}

const sizeOf = (contents) => ({ min: contents.length, gz: gzipSync(contents).length });

async function checkEdgeBuild() {
  const found = [];
  const entry = path.join(root, distFiles(entryName('.')).import);
  if (!existsSync(entry)) return [];
  try {
    // The eager part: everything `import { Transit }` loads before any key pair is used.
    const eager = await bundleConsumer(SYMMETRIC_USE, { lazy: 'external', format: 'esm' });
    const code = eager.outputFiles[0].contents;
    const { min, gz } = sizeOf(code);
    const inputs = eager.metafile.outputs[Object.keys(eager.metafile.outputs)[0]].inputs;
    console.log(
      `edge build (import { Transit }; symmetric encrypt/decrypt/HMAC, browser, minified): ${kib(min)} minified, ${kib(gz)} gzipped (budget ${kib(EDGE_BUDGET_GZIP)}), ${Object.keys(inputs).length} modules`,
    );
    printLargest(inputs, 6);
    if (gz > EDGE_BUDGET_GZIP) {
      found.push(
        `edge build: ${kib(gz)} gzipped is over the ${kib(EDGE_BUDGET_GZIP)} budget (see the largest inputs above)`,
      );
    }
    for (const heavy of ['pkijs', 'asn1js', '@peculiar/', '@noble/curves', '@noble/post-quantum']) {
      if (Object.keys(inputs).some((name) => name.includes(`node_modules/${heavy}`))) {
        found.push(`edge build: ${heavy} is in the eager bundle; it must load only on use`);
      }
    }

    // The lazy chunks, as a splitting bundler emits them.
    const split = await bundleConsumer(SYMMETRIC_USE, { lazy: 'split', format: 'esm' });
    const lazy = split.outputFiles.filter((f) => !f.path.endsWith('edge-consumer.js'));
    const lazyMin = lazy.reduce((n, f) => n + f.contents.length, 0);
    const lazyGz = lazy.reduce((n, f) => n + gzipSync(f.contents).length, 0);
    console.log(
      `  + ${lazy.length} chunks loaded on demand or shared (key pairs, PKI, CSR, import/export, backup): ${kib(lazyMin)} minified, ${kib(lazyGz)} gzipped`,
    );

    // No global touched, by the symmetric bundle and with every lazy chunk loaded.
    // The edge build runs with its on-demand chunks left out: the symmetric use must not
    // need one (vm.Script has no dynamic-import hook, so an `import()` would fail the run).
    for (const [what, source, lazy] of [
      ['the edge build', SYMMETRIC_USE, 'external'],
      [
        'the bundle with every lazy chunk (Ed25519, ECDSA, RSA, ML-DSA, CSR)',
        EVERY_CHUNK_USE,
        'inline',
      ],
    ]) {
      const cjs = await bundleConsumer(source, { lazy, format: 'cjs' });
      const { backend, changed } = await globalsTouched(cjs.outputFiles[0].text);
      if (backend !== 'noble') found.push(`${what}: ran on the ${backend} backend, not noble`);
      if (changed.length > 0) found.push(`${what} touched globals: ${changed.join('; ')}`);
      else
        console.log(`  ${what}: ran in a fresh vm context (backend ${backend}); no global touched`);
    }
  } catch (error) {
    found.push(`edge build: ${error.errors?.map((e) => e.text).join('; ') ?? error.stack}`);
  }
  return found;
}

function printLargest(inputs, n) {
  const byPackage = new Map();
  for (const [name, { bytesInOutput }] of Object.entries(inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(name);
    const key = match ? match[1] : `(transitkit) ${rel(name).split('/').slice(0, 2).join('/')}`;
    byPackage.set(key, (byPackage.get(key) ?? 0) + bytesInOutput);
  }
  for (const [name, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`  ${kib(bytes).padStart(10)}  ${name}`);
  }
}

problems.push(...(await checkEdgeBuild()));

if (problems.length > 0) {
  console.error(
    `check-bundle: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(
  `check-bundle: no Node builtins in the browser bundle; the edge build of Transit is within ${kib(EDGE_BUDGET_GZIP)} gzipped and touches no global.`,
);
