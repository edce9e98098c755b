/**
 * README.md's fenced code blocks, and the TypeScript checks the README test
 * runs on the `ts` ones: which names a block uses without declaring them (its
 * placeholders), and strict type errors once the placeholders are declared.
 * The convention itself is documented in test/readme.test.ts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One fenced block. */
export interface Block {
  /** The info string's first word (`ts`, `sh`, `json`, …); '' when the fence has none. */
  lang: string;
  /** 1-based line of the first code line in README.md. */
  line: number;
  code: string;
  /** The reason from a `<!-- not run: REASON -->` comment right above the fence. */
  notRun?: string;
}

const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->$/;

/** The fenced blocks of a Markdown document, in order. */
export function extractBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})([^`\s]*)[^`]*$/.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[1] as string;
    let prev = i - 1;
    while (prev >= 0 && (lines[prev] as string).trim() === '') prev--;
    const notRun = prev >= 0 ? NOT_RUN.exec((lines[prev] as string).trim())?.[1] : undefined;
    const start = i + 1;
    let end = start;
    while (end < lines.length && (lines[end] as string).trim() !== fence) end++;
    if (end >= lines.length) throw new Error(`README.md:${i + 1}: unclosed code fence`);
    blocks.push({
      lang: (open[2] as string).toLowerCase(),
      line: start + 1,
      code: lines.slice(start, end).join('\n'),
      ...(notRun === undefined ? {} : { notRun }),
    });
    i = end;
  }
  return blocks;
}

/** A `ts` block written out as a module, with its prelude. */
export interface BlockFile {
  block: Block;
  file: string;
  /** The placeholder names its prelude declares. */
  placeholders: string[];
}

/** Compiler options of the repository (tsconfig.json), for block files. */
function repoOptions(root: string): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error)
    throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return { ...parsed.options, noEmit: true };
}

const PRELUDE_LINES = 1;

/** "Cannot find name" (2304, 2552) and "No value exists in scope for the shorthand property" (18004). */
const FREE_NAME = new Set([2304, 2552, 18004]);

/**
 * The module text of a block: one prelude line (empty when it needs no
 * placeholder) that takes each placeholder from `placeholdersModule`, then
 * the block as written. `export {}` keeps a block without imports a module.
 */
function moduleText(block: Block, placeholders: string[], placeholdersModule: string): string {
  const prelude =
    placeholders.length === 0
      ? 'export {};'
      : `import { readme as __readme } from '${placeholdersModule}'; ${placeholders
          .map((n) => `const ${n} = await __readme.${n}();`)
          .join(' ')}`;
  return `${prelude}\n${block.code}\n`;
}

/** The diagnostics of the block files only (checking all of src/ again would be slow). */
function blockDiagnostics(program: ts.Program, files: Map<string, BlockFile>): ts.Diagnostic[] {
  const out: ts.Diagnostic[] = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
  ];
  for (const file of files.keys()) {
    const sf = program.getSourceFile(file);
    if (!sf) throw new Error(`${file} is not in the program`);
    out.push(...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf));
  }
  return out;
}

function diagnosticText(d: ts.Diagnostic, files: Map<string, BlockFile>): string {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file || d.start === undefined) return message;
  const bf = files.get(path.resolve(d.file.fileName));
  const { line } = d.file.getLineAndCharacterOfPosition(d.start);
  if (!bf) return `${d.file.fileName}:${line + 1}: ${message}`;
  return `README.md:${bf.block.line + line - PRELUDE_LINES}: ${message}`;
}

/**
 * Write each `ts` block to `dir` as a module, find the names it uses without
 * declaring them (TypeScript's "Cannot find name"), give it a prelude
 * declaring those that are placeholders, and type-check every block
 * strictly with the repository's options.
 * @returns the block files and one message per problem: an undeclared name
 * that is no placeholder, or a type error (both with README.md line numbers).
 */
export function prepareTsBlocks(
  blocks: readonly Block[],
  options: { root: string; dir: string; placeholders: readonly string[] },
): { files: BlockFile[]; problems: string[] } {
  mkdirSync(options.dir, { recursive: true });
  const compilerOptions = repoOptions(options.root);
  const rel = path.relative(options.dir, path.join(options.root, 'test/readme/placeholders.js'));
  const placeholdersModule = rel.startsWith('.') ? rel : `./${rel}`;
  const files = new Map<string, BlockFile>();
  for (const block of blocks) {
    const file = path.resolve(options.dir, `readme-L${block.line}.ts`);
    writeFileSync(file, moduleText(block, [], placeholdersModule));
    files.set(file, { block, file, placeholders: [] });
  }
  const problems: string[] = [];
  // Pass 1: the names each block leaves undeclared.
  const first = ts.createProgram([...files.keys()], compilerOptions);
  for (const d of blockDiagnostics(first, files)) {
    const bf = d.file && files.get(path.resolve(d.file.fileName));
    if (!bf || !d.file || d.start === undefined || !FREE_NAME.has(d.code)) continue;
    const name = d.file.text.slice(d.start, d.start + (d.length ?? 0));
    if (!options.placeholders.includes(name)) {
      problems.push(
        `${diagnosticText(d, files)} — declare it in the block, or add a placeholder in test/readme/placeholders.ts`,
      );
    } else if (!bf.placeholders.includes(name)) bf.placeholders.push(name);
  }
  // Pass 2: with the preludes, every block must type-check.
  for (const bf of files.values()) {
    writeFileSync(bf.file, moduleText(bf.block, bf.placeholders, placeholdersModule));
  }
  const second = ts.createProgram([...files.keys()], compilerOptions, undefined, first);
  for (const d of blockDiagnostics(second, files)) {
    const inBlock = d.file && files.has(path.resolve(d.file.fileName));
    if (inBlock && !FREE_NAME.has(d.code)) problems.push(diagnosticText(d, files));
    if (!d.file) problems.push(diagnosticText(d, files));
  }
  return { files: [...files.values()], problems };
}
