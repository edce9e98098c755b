/**
 * The packaging list (scripts/entries.mjs) agrees with package.json and the sources, before
 * any build: the cheap half of scripts/check-exports.mjs, so `npm test` catches a subpath
 * added in one place only. The built half (dist/, etc/, loading) runs in `npm run check:exports`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BACKEND_SPECIFIER,
  BACKENDS,
  distFiles,
  entryName,
  reportName,
  SUBPATHS,
} from '../../scripts/entries.mjs';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

const conditions = (entry: string) => {
  const f = distFiles(entry);
  return {
    import: { types: f.importTypes, default: f.import },
    require: { types: f.requireTypes, default: f.require },
  };
};

describe('packaging list', () => {
  it('derives entry and report names from the subpath', () => {
    expect(entryName('.')).toBe('index');
    expect(entryName('./adapters/file')).toBe('adapters/file/index');
    expect(reportName('.')).toBe('transitkit');
    expect(reportName('./adapters/file')).toBe('transitkit-adapters-file');
  });

  it('package.json exports has exactly the listed subpaths, each naming the tsup outputs', () => {
    const expected = Object.fromEntries(
      SUBPATHS.map(({ subpath }) => [subpath, conditions(entryName(subpath))]),
    );
    expect(pkg.exports).toEqual({ ...expected, './package.json': './package.json' });
  });

  it('#default-backend maps node first, then default, into dist', () => {
    const map = pkg.imports[BACKEND_SPECIFIER];
    expect(Object.keys(map)).toEqual(BACKENDS.map((b) => b.condition));
    for (const { entry, condition } of BACKENDS) expect(map[condition]).toEqual(conditions(entry));
  });

  it('every listed source exists', () => {
    for (const { source } of [...SUBPATHS, ...BACKENDS]) {
      expect(existsSync(new URL(source, root)), source).toBe(true);
    }
  });
});
