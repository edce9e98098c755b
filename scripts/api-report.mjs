#!/usr/bin/env node
/**
 * API reports, one per public subpath (scripts/entries.mjs): runs API Extractor on the
 * built declarations (`dist/<entry>.d.ts`) with the base `api-extractor.json`, overriding
 * `mainEntryPointFilePath` and `apiReport.reportFileName` (api-extractor takes one entry
 * point per run: rushstack #1596, #3557), and compares with `etc/<report>.api.md`.
 *
 *   node scripts/api-report.mjs           CI: exit 1 if a report is missing or changed
 *   node scripts/api-report.mjs --local   update the reports in etc/ (review, then commit)
 *
 * Errors (exit 1 in both modes): TypeScript errors in dist/*.d.ts and `ae-forgotten-export`
 * (a type reachable from the API that is not exported: the API must be explicit). One
 * exception: a subpath other than `.` may use a type that it imports from `transitkit` and
 * that `transitkit` exports (an adapter's `StorageAdapter`, `Clock`…). api-extractor cannot
 * see that as external (a package's self-reference is not in node_modules), so this script
 * accepts those (and those reached through a declaration the subpath re-exports from
 * `transitkit`) and prints them as notes.
 * Warnings (printed, not fatal): TSDoc syntax, and the release-tag family, which are also
 * written into the report, so a reviewer sees them in the diff.
 *
 * Requires `npm run build` first.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { entryName, PACKAGE_NAME, reportName, SUBPATHS } from './entries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const local = process.argv.includes('--local');
const configPath = path.join(root, 'api-extractor.json');
const packageJsonFullPath = path.join(root, 'package.json');
const rel = (p) => path.relative(root, p);

/** The prepared config for one subpath: the base file with the two overrides. */
function configFor(subpath) {
  const configObject = ExtractorConfig.loadFile(configPath);
  configObject.mainEntryPointFilePath = path.join(root, 'dist', `${entryName(subpath)}.d.ts`);
  configObject.apiReport = { ...configObject.apiReport, reportFileName: reportName(subpath) };
  return ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: configPath,
    packageJsonFullPath,
  });
}

const missing = SUBPATHS.map(({ subpath }) => `dist/${entryName(subpath)}.d.ts`).filter(
  (file) => !existsSync(path.join(root, file)),
);
if (missing.length > 0) {
  console.error(`api-report: missing ${missing.join(', ')}; run \`npm run build\` first.`);
  process.exit(1);
}
if (local) mkdirSync(path.join(root, 'etc'), { recursive: true });

const configs = SUBPATHS.map(({ subpath }) => ({ subpath, config: configFor(subpath) }));
// One TypeScript program over dist/ serves every subpath.
const compilerState = CompilerState.create(configs[0].config, {
  additionalEntryPoints: configs.map(({ config }) => config.mainEntryPointFilePath),
});

/** Names exported by a declaration file, as TypeScript sees them. */
function exportsOf(file) {
  const program = compilerState.program;
  const source = program.getSourceFile(file);
  const symbol = source && program.getTypeChecker().getSymbolAtLocation(source);
  return new Set(
    symbol
      ? program
          .getTypeChecker()
          .getExportsOfModule(symbol)
          .map((s) => s.name)
      : [],
  );
}

/** Names that a subpath's declarations (entry + its local chunks) import from `transitkit`. */
function importedFromRoot(file, seen = new Set()) {
  const names = new Set();
  if (seen.has(file) || !existsSync(file)) return names;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, list, from] of text.matchAll(
    /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"]([^'"]+)['"]/g,
  )) {
    if (from === PACKAGE_NAME) {
      for (const item of list.split(',')) {
        for (const name of item.replace(/^\s*type\s+/, '').split(/\s+as\s+/)) {
          if (name.trim()) names.add(name.trim());
        }
      }
    } else if (from.startsWith('.')) {
      const next = path.resolve(path.dirname(file), from.replace(/\.c?js$/, '.d.ts'));
      for (const name of importedFromRoot(next, seen)) names.add(name);
    }
  }
  return names;
}

const rootDts = path.join(root, 'dist', `${entryName('.')}.d.ts`);
const rootExports = exportsOf(rootDts);

const problems = [];
for (const { subpath, config } of configs) {
  const fromRoot = subpath === '.' ? new Set() : importedFromRoot(config.mainEntryPointFilePath);
  const accepted = [];
  const report = `${reportName(subpath)}.api.md`;
  console.log(`\n── ${subpath} → ${rel(config.mainEntryPointFilePath)} → etc/${report}`);
  const result = Extractor.invoke(config, {
    localBuild: local,
    compilerState,
    showVerboseMessages: false,
    printApiReportDiff: !local,
    messageCallback(message) {
      if (message.messageId !== 'ae-forgotten-export') return;
      const name = /The symbol "([^"]+)"/.exec(message.text)?.[1];
      // Used by name in this subpath, or reached through a declaration it re-exports
      // from `transitkit` (its location is then in transitkit's own d.ts).
      const inRoot = subpath !== '.' && message.sourceFilePath === rootDts;
      if (name && (fromRoot.has(name) || inRoot) && rootExports.has(name)) {
        message.logLevel = 'none';
        accepted.push(name);
      }
    },
  });
  if (accepted.length > 0) {
    console.log(`  uses from ${PACKAGE_NAME}: ${[...new Set(accepted)].sort().join(', ')}`);
  }

  // Messages that api-extractor put into the report instead of the console.
  const generated = path.join(config.reportTempFolder, report);
  const notes = existsSync(generated)
    ? readFileSync(generated, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('// Warning:'))
    : [];
  for (const note of notes) console.warn(`  report: ${note.slice(3)}`);

  const summary = `${result.errorCount} error(s), ${result.warningCount} warning(s), ${notes.length} note(s) in the report`;
  if (result.errorCount > 0) {
    problems.push(`${subpath}: ${summary}`);
  } else if (!local && result.apiReportChanged) {
    problems.push(
      `${subpath}: etc/${report} is missing or out of date; run \`npm run build && npm run api:update\`, review the diff and commit it`,
    );
  } else {
    console.log(`  ok (${summary}${local && result.apiReportChanged ? '; report updated' : ''})`);
  }
}

if (problems.length > 0) {
  console.error(`\napi-report failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`\napi-report: ${configs.length} report(s) ${local ? 'written' : 'up to date'}.`);
