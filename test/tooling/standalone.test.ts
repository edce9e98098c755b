/**
 * The repository stands alone (issue 21): nothing in it reads the project's
 * design folder that sits beside the repository on the team's machines. Tests,
 * scripts, bench, examples and CI use only what is in the clone; the vendored
 * vectors and fixtures carry their provenance in READMEs (prose may name where
 * they came from, code may not). `.ci/run` also runs the test suite in a copy
 * with nothing beside it, which catches a dependency this scan cannot see.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/vectors.js';

/** Folders that are not the project's own files (installs, builds, scratch). */
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'temp', 'coverage']);
/** Prose and data: they may say where vendored data came from. */
const PROSE = /\.(md|json|gz)$|(^|\/)LICENSE$/;
/** The sibling folder, spelled so that this file does not match itself. */
const SIBLING = ['..', 'shared'].join('/');
const ABSOLUTE = ['', 'work', 'shared'].join('/');

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) yield* files(path.join(dir, entry.name));
    } else if (entry.isFile()) {
      yield path.join(dir, entry.name);
    }
  }
}

describe('the repository stands alone', () => {
  const all = [...files(REPO_ROOT)].map((f) => path.relative(REPO_ROOT, f));

  it('scans the whole tree (sources, tests, scripts, CI)', () => {
    for (const expected of ['.ci/run', 'package.json', 'src/index.ts', 'test/helpers/vectors.ts']) {
      expect(all).toContain(expected);
    }
  });

  it('no code, script or config names the sibling design folder', () => {
    const offenders: string[] = [];
    for (const rel of all) {
      if (PROSE.test(rel) || statSync(path.join(REPO_ROOT, rel)).size > 2_000_000) continue;
      const text = readFileSync(path.join(REPO_ROOT, rel), 'utf8');
      text.split('\n').forEach((line, i) => {
        if (line.includes(SIBLING) || line.includes(ABSOLUTE)) offenders.push(`${rel}:${i + 1}`);
      });
    }
    expect(offenders, 'files that reach outside the clone').toEqual([]);
  });

  it('the vendored data carries its provenance and licence', () => {
    for (const f of [
      'test/vectors/wycheproof/README.md',
      'test/vectors/wycheproof/LICENSE',
      'test/fixtures/vault/README.md',
      'docs/api.md',
    ]) {
      expect(all, f).toContain(f);
    }
    expect(readFileSync(path.join(REPO_ROOT, 'test/vectors/wycheproof/README.md'), 'utf8')).toMatch(
      /commit\s+`[0-9a-f]{40}`/,
    );
  });

  it('the package tarball carries no test data', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      files: string[];
    };
    // The built code, the changelog and the documents the README links to (no test/ or
    // vectors among them); scripts/check-pack.mjs checks the real tarball.
    expect(pkg.files).toEqual(['dist', 'CHANGELOG.md', 'SECURITY.md', 'docs', 'examples']);
  });
});
