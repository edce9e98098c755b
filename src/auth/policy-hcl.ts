/**
 * Vault ACL policy documents: the HCL subset `path "…" { capabilities = [...] }`
 * and the JSON form `{"path": {"…": {"capabilities": [...]}}}`.
 *
 * Supported per path block: `capabilities = [..]` and the legacy
 * `policy = "read" | "write" | "deny" | "sudo"` shorthand. Attributes that
 * *narrow* access in Vault (`allowed_parameters`, `denied_parameters`,
 * `required_parameters`, wrapping TTLs, control groups) are refused rather than
 * ignored: ignoring them would silently grant more than the author meant.
 *
 * Every syntax error is an `invalid_request` naming the line and column.
 * Pure and runtime-neutral.
 * @module
 */
import { invalidRequest } from '../errors.js';

/**
 * A capability of a Vault ACL rule.
 * @public
 */
export type Capability =
  | 'create'
  | 'read'
  | 'update'
  | 'delete'
  | 'list'
  | 'sudo'
  | 'deny'
  | 'patch'
  | 'subscribe';

/** The capabilities a rule may name. @internal */
export const CAPABILITIES: ReadonlySet<string> = /* @__PURE__ */ new Set<Capability>([
  'create',
  'read',
  'update',
  'delete',
  'list',
  'sudo',
  'deny',
  'patch',
  'subscribe',
]);

/** Vault's legacy `policy = "…"` shorthands. */
const LEGACY: Readonly<Record<string, readonly Capability[]>> = {
  deny: ['deny'],
  read: ['read', 'list'],
  write: ['create', 'read', 'update', 'delete', 'list'],
  sudo: ['create', 'read', 'update', 'delete', 'list', 'sudo'],
};

/**
 * One rule of a policy: a path pattern (`*` suffix glob, `+` segment wildcard)
 * and its capabilities.
 * @public
 */
export interface PolicyRule {
  path: string;
  capabilities: Capability[];
}

/**
 * A parsed policy: its rules in document order (a path named twice is merged).
 * @public
 */
export interface ParsedPolicy {
  rules: PolicyRule[];
}

type Tok =
  | { t: 'str'; v: string; line: number; col: number }
  | { t: 'id'; v: string; line: number; col: number }
  | { t: 'p'; v: string; line: number; col: number }
  | { t: 'eof'; v: ''; line: number; col: number };

const fail = (line: number, col: number, msg: string) =>
  invalidRequest(`failed to parse policy: line ${line}, column ${col}: ${msg}`);

/** Split HCL text into tokens (strings, identifiers, punctuation); comments are skipped. */
function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const col = () => i - lineStart + 1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw fail(line, col(), 'unterminated comment');
      for (let j = i; j < end; j++) {
        if (text[j] === '\n') {
          line++;
          lineStart = j + 1;
        }
      }
      i = end + 2;
    } else if (c === '"') {
      const startCol = col();
      let v = '';
      i++;
      for (;;) {
        const d = text[i];
        if (d === undefined || d === '\n') throw fail(line, startCol, 'unterminated string');
        i++;
        if (d === '"') break;
        if (d === '\\') {
          const e = text[i++];
          if (e === 'n') v += '\n';
          else if (e === 't') v += '\t';
          else if (e === '"' || e === '\\' || e === '/') v += e;
          else throw fail(line, col() - 2, `invalid escape \\${e ?? ''}`);
        } else {
          v += d;
        }
      }
      out.push({ t: 'str', v, line, col: startCol });
    } else if ('{}[]=,:'.includes(c)) {
      out.push({ t: 'p', v: c, line, col: col() });
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const startCol = col();
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i, i + 128)) as RegExpExecArray;
      out.push({ t: 'id', v: m[0], line, col: startCol });
      i += m[0].length;
    } else {
      throw fail(line, col(), `unexpected character ${JSON.stringify(c)}`);
    }
  }
  out.push({ t: 'eof', v: '', line, col: col() });
  return out;
}

/** Capabilities of one block, from `capabilities = [...]` or `policy = "..."`. */
function capabilitiesOf(
  attrs: Map<string, { value: string | string[]; line: number; col: number }>,
  at: { line: number; col: number },
): Capability[] {
  const out = new Set<Capability>();
  for (const [name, { value, line, col }] of attrs) {
    if (name === 'capabilities') {
      if (!Array.isArray(value)) throw fail(line, col, 'capabilities must be a list of strings');
      for (const c of value) {
        const cap = c.trim().toLowerCase();
        if (!CAPABILITIES.has(cap))
          throw fail(line, col, `unknown capability ${JSON.stringify(c)}`);
        out.add(cap as Capability);
      }
    } else if (name === 'policy') {
      const caps = typeof value === 'string' ? LEGACY[value.toLowerCase()] : undefined;
      if (!caps) throw fail(line, col, `invalid policy value ${JSON.stringify(value)}`);
      for (const c of caps) out.add(c);
    } else {
      throw fail(line, col, `unsupported attribute ${JSON.stringify(name)}`);
    }
  }
  if (!attrs.has('capabilities') && !attrs.has('policy')) {
    throw fail(at.line, at.col, 'a path block needs capabilities');
  }
  return out.has('deny') ? ['deny'] : [...out];
}

/** Parse the HCL form. */
function parseHcl(text: string): PolicyRule[] {
  const toks = tokenize(text);
  let k = 0;
  const peek = () => toks[k] as Tok;
  const next = () => toks[k++] as Tok;
  const expect = (t: Tok['t'], v?: string): Tok => {
    const tok = next();
    if (tok.t !== t || (v !== undefined && tok.v !== v)) {
      const want = v ? `'${v}'` : t === 'str' ? 'a quoted string' : 'a name';
      const got = tok.t === 'eof' ? 'end of policy' : JSON.stringify(tok.v);
      throw fail(tok.line, tok.col, `expected ${want}, found ${got}`);
    }
    return tok;
  };
  const rules: PolicyRule[] = [];
  while (peek().t !== 'eof') {
    const kw = expect('id');
    if (kw.v !== 'path')
      throw fail(kw.line, kw.col, `expected 'path', found ${JSON.stringify(kw.v)}`);
    const pathTok = expect('str');
    if (peek().t === 'p' && peek().v === '=') next();
    expect('p', '{');
    const attrs = new Map<string, { value: string | string[]; line: number; col: number }>();
    while (!(peek().t === 'p' && peek().v === '}')) {
      const name = expect('id');
      if (attrs.has(name.v)) throw fail(name.line, name.col, `duplicate attribute ${name.v}`);
      expect('p', '=');
      if (peek().t === 'p' && peek().v === '[') {
        next();
        const list: string[] = [];
        while (!(peek().t === 'p' && peek().v === ']')) {
          list.push(expect('str').v);
          if (peek().t === 'p' && peek().v === ',') next();
          else if (!(peek().t === 'p' && peek().v === ']')) expect('p', ',');
        }
        next();
        attrs.set(name.v, { value: list, line: name.line, col: name.col });
      } else if (peek().t === 'str') {
        attrs.set(name.v, { value: next().v, line: name.line, col: name.col });
      } else {
        const tok = peek();
        throw fail(tok.line, tok.col, `unsupported value for ${name.v}`);
      }
      if (peek().t === 'p' && peek().v === ',') next();
    }
    next();
    rules.push({ path: pathTok.v, capabilities: capabilitiesOf(attrs, pathTok) });
  }
  return rules;
}

/**
 * The first key named twice in one object of `text`, a JSON text that
 * `JSON.parse` accepted (so only strings, nesting and `:` need telling apart).
 * lossless-json's parser refuses duplicates too, but importing it here puts
 * its number class into the edge build of `Transit` (esbuild keeps a class
 * with a computed symbol key), over that build's budget.
 */
function duplicateKey(text: string): string | undefined {
  const objects: Array<Set<string> | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') objects.push(new Set());
    else if (c === '[') objects.push(undefined);
    else if (c === '}' || c === ']') objects.pop();
    else if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      let j = i + 1;
      while (j < text.length && ' \t\n\r'.includes(text[j] as string)) j++;
      const keys = objects[objects.length - 1];
      if (text[j] !== ':' || !keys) continue;
      const key = JSON.parse(text.slice(start, i + 1)) as string;
      if (keys.has(key)) return key;
      keys.add(key);
    }
  }
  return undefined;
}

/**
 * Parse the JSON form. A key named twice in one object is refused
 * (`JSON.parse` would keep the last silently, so a `deny` written first would
 * vanish; Vault's HCL1 reader merges them instead, deny winning): as the HCL
 * form refuses an attribute set twice.
 */
function parseJson(text: string): PolicyRule[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw invalidRequest(`failed to parse policy: ${(e as Error).message}`);
  }
  const twice = duplicateKey(text);
  if (twice !== undefined) {
    throw invalidRequest(`failed to parse policy: duplicate key ${JSON.stringify(twice)}`);
  }
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(doc)) throw invalidRequest('failed to parse policy: expected a JSON object');
  const paths = doc.path;
  const blocks = Array.isArray(paths) ? paths : [paths];
  const rules: PolicyRule[] = [];
  for (const extra of Object.keys(doc)) {
    if (extra !== 'path')
      throw invalidRequest(`failed to parse policy: unsupported key "${extra}"`);
  }
  for (const block of blocks) {
    if (!isObj(block)) throw invalidRequest('failed to parse policy: "path" must be an object');
    for (const [path, body] of Object.entries(block)) {
      if (!isObj(body)) {
        throw invalidRequest(
          `failed to parse policy: path ${JSON.stringify(path)} must be an object`,
        );
      }
      const attrs = new Map<string, { value: string | string[]; line: number; col: number }>();
      for (const [name, value] of Object.entries(body)) {
        const ok =
          typeof value === 'string' ||
          (Array.isArray(value) && value.every((v) => typeof v === 'string'));
        if (!ok) {
          throw invalidRequest(`failed to parse policy: ${path}: ${name} has an unsupported value`);
        }
        attrs.set(name, { value: value as string | string[], line: 1, col: 1 });
      }
      rules.push({ path, capabilities: capabilitiesOf(attrs, { line: 1, col: 1 }) });
    }
  }
  return rules;
}

/**
 * Parse a policy document (HCL subset or JSON). A rule's one leading `/` is
 * dropped; a path named twice has its capabilities merged (`deny` wins).
 *
 * @example
 * ```ts
 * const p = parsePolicy('path "transit/sign/+/sha1" { capabilities = ["deny"] }');
 * p.rules[0]; // { path: 'transit/sign/+/sha1', capabilities: ['deny'] }
 * ```
 * @throws TransitError `invalid_request` with the line and column of a syntax error.
 * @public
 */
export function parsePolicy(text: string): ParsedPolicy {
  if (typeof text !== 'string') throw invalidRequest('policy must be a string');
  const trimmed = text.trim();
  if (trimmed === '') throw invalidRequest('policy document is empty');
  const raw = trimmed.startsWith('{') ? parseJson(trimmed) : parseHcl(text);
  const merged = new Map<string, Set<Capability>>();
  for (const r of raw) {
    // One leading `/` goes, as Vault's parsePaths (`//x` keeps `/x`, which no request matches).
    const path = r.path.startsWith('/') ? r.path.slice(1) : r.path;
    // As Vault's parsePaths: `+*` would match only a literal `+`, never what it seems to.
    if (path.includes('+*')) {
      throw invalidRequest(
        `failed to parse policy: path ${JSON.stringify(path)}: invalid use of wildcards ('+*' is forbidden)`,
      );
    }
    const set = merged.get(path) ?? new Set<Capability>();
    for (const c of r.capabilities) set.add(c);
    merged.set(path, set);
  }
  return {
    rules: [...merged].map(([path, caps]) => ({
      path,
      capabilities: caps.has('deny') ? ['deny'] : [...caps],
    })),
  };
}
