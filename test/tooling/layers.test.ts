/**
 * The layering rules of issue #23 (design.md: data flows one way, down),
 * checked by reading every import of `src/` and `adapters/`:
 * - the core (`src/**`) never imports `adapters/**` nor the package by name
 *   (`transitkit`, `transitkit/...`): relative imports only, so no type cycle
 *   runs through the barrel;
 * - shared vocabulary lives in neutral modules (`src/request.ts`,
 *   `src/result-meta.ts`, `src/clock.ts`, `src/errors.ts`, `src/encoding.ts`,
 *   `src/util/`), which import no domain folder;
 * - `src/leases` and `src/auth` never import `src/transit` or `src/keys`;
 * - the node's leadership (`src/node/leadership.ts`) stands on the clock and
 *   storage only, so the lease scheduler and the engine may consult it; no
 *   other `src/node` module is imported by the layers below the node;
 * - the storage layer (`src/storage`) imports no layer above it;
 * - a storage adapter takes the storage kit from `src/storage`, never from
 *   another adapter (there is no `adapters/memory`: memory is the core default);
 * - the HTTP adapter reads result metadata from `src/result-meta.ts`, never the
 *   engine's batch runner.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/vectors.js';

/** Every `.ts` file under `dir` (repository-relative, `/`-separated). */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(path.join(REPO_ROOT, d), { withFileTypes: true })) {
      const rel = `${d}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  walk(dir);
  return out.sort();
}

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The module specifiers `file` imports or re-exports (comments stripped). */
function specifiers(file: string): string[] {
  const src = readFileSync(path.join(REPO_ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...src.matchAll(SPECIFIER)].map((m) => (m[1] ?? m[2]) as string);
}

/** Repository-relative target of a relative specifier (`.js` → `.ts`), else the bare name. */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  const abs = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  return abs.replace(/\.js$/, '.ts');
}

/** Every import edge `from → to` of the files under `dirs`. */
function edges(...dirs: string[]): Array<{ from: string; to: string }> {
  return dirs.flatMap((d) =>
    tsFiles(d).flatMap((from) => specifiers(from).map((s) => ({ from, to: target(from, s) }))),
  );
}

const show = (es: Array<{ from: string; to: string }>) => es.map((e) => `${e.from} → ${e.to}`);
const under = (p: string, ...dirs: string[]) => dirs.some((d) => p === d || p.startsWith(`${d}/`));

const CORE = edges('src');
const ADAPTERS = edges('adapters');

describe('layers (issue #23)', () => {
  it('reads the imports it checks', () => {
    expect(CORE.length).toBeGreaterThan(200);
    expect(ADAPTERS.length).toBeGreaterThan(100);
    expect(CORE).toContainEqual({ from: 'src/transit/options.ts', to: 'src/storage/memory.ts' });
    expect(specifiers('test/tooling/layers.test.ts')).toContain('node:fs');
  });

  it('the core never imports adapters/** nor the transitkit barrel', () => {
    const bad = CORE.filter(
      (e) => under(e.to, 'adapters') || e.to === 'transitkit' || e.to.startsWith('transitkit/'),
    );
    expect(show(bad)).toEqual([]);
  });

  it('neutral modules import no domain folder', () => {
    const NEUTRAL = [
      'src/request.ts',
      'src/result-meta.ts',
      'src/clock.ts',
      'src/errors.ts',
      'src/encoding.ts',
    ];
    const bad = CORE.filter(
      (e) =>
        (NEUTRAL.includes(e.from) || under(e.from, 'src/util')) &&
        e.to.startsWith('src/') &&
        !NEUTRAL.includes(e.to) &&
        !under(e.to, 'src/util'),
    );
    expect(show(bad)).toEqual([]);
  });

  it('src/leases and src/auth never import src/transit or src/keys', () => {
    const bad = CORE.filter(
      (e) => under(e.from, 'src/leases', 'src/auth') && under(e.to, 'src/transit', 'src/keys'),
    );
    expect(show(bad)).toEqual([]);
  });

  it('below the node, only the leadership of src/node is used; it stands on clock, storage and util', () => {
    const below = CORE.filter(
      (e) => !under(e.from, 'src/node') && e.from !== 'src/index.ts' && under(e.to, 'src/node'),
    );
    expect(show(below.filter((e) => e.to !== 'src/node/leadership.ts'))).toEqual([]);
    const lead = CORE.filter((e) => e.from === 'src/node/leadership.ts' && e.to.startsWith('src/'));
    expect(
      show(
        lead.filter(
          (e) =>
            !['src/clock.ts', 'src/storage/adapter.ts', 'src/storage/keyspace.ts'].includes(e.to) &&
            // The neutral shared modules (its brand across builds: src/util/brand.ts).
            !e.to.startsWith('src/util/'),
        ),
      ),
    ).toEqual([]);
  });

  it('the storage layer imports no layer above it', () => {
    const bad = CORE.filter(
      (e) =>
        under(e.from, 'src/storage') &&
        under(e.to, 'src/transit', 'src/keys', 'src/leases', 'src/auth', 'src/node'),
    );
    expect(show(bad)).toEqual([]);
  });

  it('storage adapters take the kit from src/storage, never from another adapter', () => {
    expect(existsSync(path.join(REPO_ROOT, 'adapters/memory'))).toBe(false);
    const STORES = ['adapters/file', 'adapters/redis', 'adapters/postgres'];
    const bad = ADAPTERS.filter((e) => {
      const own = STORES.find((d) => under(e.from, d));
      return own !== undefined && under(e.to, 'adapters') && !under(e.to, own);
    });
    expect(show(bad)).toEqual([]);
    for (const d of STORES) {
      const kit = ADAPTERS.filter((e) => under(e.from, d) && e.to === 'src/storage/kit.ts');
      expect(kit.length, d).toBeGreaterThan(0);
    }
  });

  it('the HTTP adapter reads result metadata, not the engine batch runner', () => {
    const bad = ADAPTERS.filter(
      (e) =>
        under(e.from, 'adapters/http') &&
        ['src/transit/batch.ts', 'src/transit/warnings.ts', 'src/transit/request.ts'].includes(
          e.to,
        ),
    );
    expect(show(bad)).toEqual([]);
  });

  it("Go's bool table lives once, in src/request.ts", () => {
    const table = /new Set\(\[\s*'1',\s*'t',\s*'T',\s*'TRUE'/;
    const copies = [...tsFiles('src'), ...tsFiles('adapters')].filter((f) =>
      table.test(readFileSync(path.join(REPO_ROOT, f), 'utf8')),
    );
    expect(copies).toEqual(['src/request.ts']);
  });
});
