/**
 * Documentation users read points only at things they have (issue #22):
 *
 * - the TSDoc of the public API — every declaration each package entry
 *   exports, its members, and each entry's `@packageDocumentation` (what the
 *   published `.d.ts` files carry) — names no repository file (`src/…`,
 *   `test/…`, `adapters/…`), no `design.md`/`style.md`, and no section of
 *   the development reference (`reference §…`), none of which is in the
 *   package;
 * - README.md's relative links and the repository paths it names in
 *   backticks exist in the repository (GitHub and npm resolve them there),
 *   and its `#anchors` name its headings.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SUBPATHS } from '../../scripts/entries.mjs';
import { ROOT_DIR } from '../http/helpers.js';

/** What a user of the package cannot open (a package subpath such as `transitkit/adapters/file` is fine). */
const FORBIDDEN =
  /(?<![\w/@.-])(?:design\.md|style\.md|reference §|(?:src|test|adapters|bench|scripts)\/[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]*)*)/g;

function publicDocs(): Map<string, string> {
  const config = ts.readConfigFile(path.join(ROOT_DIR, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT_DIR);
  const entries = (SUBPATHS as ReadonlyArray<{ subpath: string; source: string }>).map((s) =>
    path.join(ROOT_DIR, s.source),
  );
  const program = ts.createProgram(entries, { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const docs = new Map<string, string>(); // "file:line" → TSDoc text
  const seen = new Set<ts.Symbol>();

  const record = (node: ts.Node) => {
    const sf = node.getSourceFile();
    for (const range of ts.getLeadingCommentRanges(sf.text, node.pos) ?? []) {
      const text = sf.text.slice(range.pos, range.end);
      if (!text.startsWith('/**')) continue;
      const { line } = sf.getLineAndCharacterOfPosition(range.pos);
      docs.set(`${path.relative(ROOT_DIR, sf.fileName)}:${line + 1}`, text);
    }
  };
  const visit = (symbol: ts.Symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (seen.has(target)) return;
    seen.add(target);
    for (const decl of target.declarations ?? []) {
      record(ts.isVariableDeclaration(decl) ? decl.parent.parent : decl);
    }
    for (const member of target.members?.values() ?? []) visit(member);
    for (const member of target.exports?.values() ?? []) visit(member);
  };
  for (const entry of entries) {
    const sf = program.getSourceFile(entry);
    if (!sf) throw new Error(`no source file ${entry}`);
    // The entry's header (@packageDocumentation) ships with its declarations.
    const header = ts.getLeadingCommentRanges(sf.text, 0)?.[0];
    if (header)
      docs.set(`${path.relative(ROOT_DIR, entry)}:1`, sf.text.slice(header.pos, header.end));
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    for (const s of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) visit(s);
  }
  return docs;
}

describe('pointers in the documentation users read', () => {
  it('public TSDoc names no file outside the package', () => {
    const docs = publicDocs();
    expect(docs.size).toBeGreaterThan(200);
    const bad = [...docs].flatMap(([where, text]) =>
      [...text.matchAll(FORBIDDEN)].map((m) => `${where}: ${m[0]}`),
    );
    expect(bad).toEqual([]);
  }, 120_000);

  it("README.md's relative links and repository paths exist", () => {
    const readme = readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)/g)].map((m) => m[1]);
    const paths = [
      ...readme.matchAll(/`((?:src|test|adapters|examples|docs|bench|scripts|etc)\/[^`\s…*]*)`/g),
    ].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(3);
    const missing = [...links, ...paths].filter(
      (p) => !existsSync(path.join(ROOT_DIR, (p as string).replace(/\/$/, ''))),
    );
    expect(missing).toEqual([]);
  });

  it("README.md's #anchors name its headings (GitHub's slugs)", () => {
    const readme = readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
    const slug = (h: string) =>
      h
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}_\- ]/gu, '')
        .replaceAll(' ', '-');
    const headings = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] as string)));
    const anchors = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] as string);
    expect(anchors.length).toBeGreaterThan(3);
    expect(anchors.filter((a) => !headings.has(a))).toEqual([]);
  });
});
