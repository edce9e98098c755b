/**
 * The tarball ships examples/ (package.json `files`) without the repository's
 * sources or tests, so an example must load from node_modules/transitkit/examples:
 * its static imports are packages (`transitkit…`, `node:…`, dependencies) or
 * files beside it, never `../adapters/…` or `../test/…`. (An example may still
 * use a repository file it finds at run time, with a fallback when it is absent.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dir = new URL('../../examples/', import.meta.url);
const examples = readdirSync(dir).filter((f) => f.endsWith('.ts'));
const STATIC_IMPORT = /^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gm;

describe('examples load from the installed package', () => {
  it.each(examples)('%s imports nothing outside examples/', (file) => {
    const source = readFileSync(new URL(file, dir), 'utf8');
    const outside = [...source.matchAll(STATIC_IMPORT)]
      .map((m) => m[1] as string)
      .filter((spec) => spec.startsWith('../') || spec.startsWith('/'));
    expect(outside).toEqual([]);
  });

  it('finds the imports it checks', () => {
    const source = readFileSync(new URL('postgres.ts', dir), 'utf8');
    expect([...source.matchAll(STATIC_IMPORT)].map((m) => m[1])).toContain(
      'transitkit/adapters/postgres',
    );
  });
});
