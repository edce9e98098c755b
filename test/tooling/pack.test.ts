/**
 * The tarball rules of scripts/check-pack.mjs (issue 22: a lean tarball), on file lists,
 * before any build; `npm run check:exports` applies them to the real `npm pack --dry-run`
 * after `npm run build`. Also: the repository's LICENSE is the MPL-2.0 text it checks for.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MPL_2_0_SHA256, packProblems, readmeLinkProblems } from '../../scripts/check-pack.mjs';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

/** The files package.json names, as a tarball that has exactly them would list them. */
function namedFiles(): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.add(v.replace(/^\.\//, ''));
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk([pkg.main, pkg.module, pkg.types, pkg.bin, pkg.exports, pkg.imports]);
  return [...out];
}

const BASE = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', ...namedFiles()];

describe('tarball rules (check-pack)', () => {
  it('accepts the files package.json names, chunks and declaration chunks', () => {
    expect(
      packProblems(
        [...BASE, 'dist/chunk-ABC123.js', 'dist/chunk-XYZ.cjs', 'dist/backend-Q1.d.ts'],
        pkg,
      ),
    ).toEqual([]);
  });

  it('refuses source maps, sources and stray files', () => {
    expect(
      packProblems(
        [...BASE, 'dist/index.js.map', 'src/index.ts', 'test/x.test.ts', 'dist/notes.txt'],
        pkg,
      ),
    ).toEqual([
      'dist/index.js.map: source maps are not shipped',
      'src/index.ts: not a built file (only dist/**/*.{js,cjs,d.ts,d.cts} ship)',
      'test/x.test.ts: not a built file (only dist/**/*.{js,cjs,d.ts,d.cts} ship)',
      'dist/notes.txt: not a built file (only dist/**/*.{js,cjs,d.ts,d.cts} ship)',
    ]);
  });

  it('ships the documentation the README links to, and nothing else beside dist', () => {
    expect(
      packProblems([...BASE, 'SECURITY.md', 'docs/api.md', 'examples/in-process.ts'], pkg),
    ).toEqual([]);
    expect(packProblems([...BASE, 'docs/notes.txt', 'examples/sub/x.ts'], pkg)).toEqual([
      'docs/notes.txt: not a built file (only dist/**/*.{js,cjs,d.ts,d.cts} ship)',
      'examples/sub/x.ts: not a built file (only dist/**/*.{js,cjs,d.ts,d.cts} ship)',
    ]);
  });

  it('every relative link of the README names a file in the tarball', () => {
    const readme = '[a](docs/api.md) [b](examples) [c](https://x.y) [d](#top) [e](docs/gone.md#x)';
    expect(readmeLinkProblems(['docs/api.md', 'examples/in-process.ts'], readme)).toEqual([
      'README links to docs/gone.md, which is not in the tarball',
    ]);
    // The real README against what package.json ships (files listed by the repository).
    const real = readFileSync(new URL('README.md', root), 'utf8');
    const shipped = ['SECURITY.md', 'CHANGELOG.md', 'LICENSE'];
    for (const dir of ['docs', 'examples']) {
      for (const f of readdirSync(new URL(`${dir}/`, root))) shipped.push(`${dir}/${f}`);
    }
    expect(readmeLinkProblems(shipped, real)).toEqual([]);
  });

  it('refuses a CommonJS build or declarations of the CLI', () => {
    expect(
      packProblems(
        [...BASE, 'dist/cli/main.cjs', 'dist/cli/main.d.ts', 'dist/cli/main.d.cts'],
        pkg,
      ),
    ).toEqual([
      'dist/cli/main.cjs: the CLI ships as ESM only, without a CommonJS build or declarations',
      'dist/cli/main.d.ts: the CLI ships as ESM only, without a CommonJS build or declarations',
      'dist/cli/main.d.cts: the CLI ships as ESM only, without a CommonJS build or declarations',
    ]);
  });

  it('requires LICENSE, README and every file package.json names', () => {
    const files = BASE.filter((f) => f !== 'LICENSE' && f !== 'dist/index.cjs');
    expect(packProblems(files, pkg)).toEqual([
      'LICENSE is missing from the tarball',
      'dist/index.cjs is named in package.json but not in the tarball',
    ]);
  });

  it('the bin is the ESM CLI, and package.json ships LICENSE and CHANGELOG with dist', () => {
    expect(pkg.bin).toEqual({ transitkit: './dist/cli/main.js' });
    expect(pkg.files).toEqual(['dist', 'CHANGELOG.md', 'SECURITY.md', 'docs', 'examples']);
    expect(pkg.license).toBe('MPL-2.0');
  });

  it('LICENSE is the MPL-2.0 text, byte for byte', () => {
    const text = readFileSync(new URL('LICENSE', root));
    expect(text.length).toBe(16_726);
    expect(createHash('sha256').update(text).digest('hex')).toBe(MPL_2_0_SHA256);
    expect(text.toString('utf8')).toMatch(/^Mozilla Public License Version 2\.0\n/);
  });

  it('names the repository, its home page and its issue tracker', () => {
    expect(pkg.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/transitkit/transitkit.git',
    });
    expect(pkg.homepage).toBe('https://github.com/transitkit/transitkit#readme');
    expect(pkg.bugs).toEqual({ url: 'https://github.com/transitkit/transitkit/issues' });
  });
});
