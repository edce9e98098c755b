/**
 * The key-type registry rule (src/keys/key-types.ts, issue #23): a type's
 * behaviour is its row and the row's family object, so
 *
 * - every row's family implements the whole `KeyFamily` interface (and a
 *   key-pair family the whole `AsymmetricFamily` one), consistently with the
 *   row, and round-trips a generated version through each of its codecs
 *   (stored JSON, backup `KeyEntry` + restore checks, import of what
 *   byok-export wraps, export strings);
 * - no source file outside the registry and the family files compares a
 *   family name, a type name or a material kind, or reads a family's name:
 *   such a branch is behaviour outside the registry. The crypto layer
 *   (src/crypto/) is exempt: it names algorithms and neutral keys in its
 *   own namespace (`'ed25519'` there is a key encoding, not a key type).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeBackend } from '../../src/crypto/node/index.js';
import type { AsymmetricFamily } from '../../src/keys/asymmetric/family.js';
import { KEY_FAMILY_MEMBERS, type KeyFamily } from '../../src/keys/families/family.js';
import { GoObject, goJsonEncode, goJsonParse } from '../../src/keys/go-json.js';
import {
  DEFAULT_KEY_TYPE,
  keyType,
  keyTypeNames,
  keyTypeRows,
  loadAsymmetricFamilies,
  materialFamily,
  WRAPPING_KEY_TYPE,
} from '../../src/keys/key-types.js';
import type { KeyVersion } from '../../src/keys/policy.js';
import { decodeVersion, encodeVersion } from '../../src/keys/policy-codec.js';
import { decodeEntry, encodeEntry } from '../../src/keys/vault-backup-entry.js';
import { buildPolicy } from '../../src/transit/keys.js';

// Compile-time: the member list the checks below walk is the whole interface.
type Unlisted = Exclude<keyof KeyFamily, (typeof KEY_FAMILY_MEMBERS)[number]>;
const everyMemberListed: [Unlisted] extends [never] ? true : never = true;

/** The members a key-pair family adds that every one of them must have. */
const ASYMMETRIC_MEMBERS = [
  'readPublicKey',
  'sign',
  'verify',
  'exportPrivate',
  'exportPublic',
  'privateKey',
  'publicKey',
] as const satisfies readonly (keyof AsymmetricFamily)[];

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Where names may be compared: the registry and the family files. */
const ALLOWED = [/^keys\/key-types\.ts$/, /^keys\/families\//, /^keys\/asymmetric\//, /^crypto\//];

function sources(dir: string, rel = ''): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) return sources(path.join(dir, d.name), r);
    if (!d.name.endsWith('.ts')) return [];
    return [{ file: r, text: readFileSync(path.join(dir, d.name), 'utf8') }];
  });
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The patterns of a branch on a registry name, and of reading a family's identity. */
function forbiddenPatterns(): RegExp[] {
  const rows = keyTypeRows();
  const names = new Set<string>([
    ...keyTypeNames(),
    ...rows.map((r) => r.family.name),
    ...rows.flatMap((r) => (r.family.materialKind ? [r.family.materialKind] : [])),
  ]);
  const alt = [...names].map(escapeRe).join('|');
  return [
    new RegExp(`[!=]==\\s*['"\`](?:${alt})['"\`]`),
    new RegExp(`['"\`](?:${alt})['"\`]\\s*[!=]==`),
    new RegExp(`case\\s+['"\`](?:${alt})['"\`]\\s*:`),
    /\bfamily\s*[!=]==|[!=]==\s*\w*[fF]amily\b(?!\.)/,
    /\bfamily\.name\b/,
    /\bmaterialKind\b/,
  ];
}

describe('key-type registry', () => {
  // The key-pair families load on demand (issue 22); this test reads every row's.
  beforeAll(loadAsymmetricFamilies);

  it('lists every KeyFamily member', () => {
    expect(everyMemberListed).toBe(true);
    expect(new Set(KEY_FAMILY_MEMBERS).size).toBe(KEY_FAMILY_MEMBERS.length);
  });

  it('resolves every row by its name, case-insensitively, and knows its defaults', () => {
    for (const name of keyTypeNames()) {
      expect(keyType(name).name).toBe(name);
      expect(keyType(name.toUpperCase())).toBe(keyType(name));
    }
    expect(keyType(DEFAULT_KEY_TYPE).supportsEncryption).toBe(true);
    expect(keyType(WRAPPING_KEY_TYPE).family.asymmetric).toBe(true);
    expect((keyType(WRAPPING_KEY_TYPE).family as AsymmetricFamily).wrappingPrivateKey).toBeTypeOf(
      'function',
    );
  });

  it("gives every row's family the whole interface, consistent with the row", () => {
    for (const row of keyTypeRows()) {
      const f = row.family as unknown as Record<string, unknown>;
      for (const m of KEY_FAMILY_MEMBERS) expect(m in f, `${row.name}: ${m}`).toBe(true);
      for (const m of KEY_FAMILY_MEMBERS.filter((m) => typeof f[m] !== 'function')) {
        expect(['name', 'asymmetric', 'materialKind', 'keySized', 'importable']).toContain(m);
      }
      expect(typeof row.family.name).toBe('string');
      expect(row.asymmetric).toBe(row.family.asymmetric);
      expect(row.family.materialKind !== undefined).toBe(row.family.asymmetric);
      if (row.family.asymmetric) {
        for (const m of ASYMMETRIC_MEMBERS)
          expect(f[m], `${row.name}: ${m}`).toBeTypeOf('function');
        expect(row.publicKeyName).toBeTypeOf('string');
      }
      if (row.aead) expect(row.nonceBytes).toBeGreaterThan(0);
    }
  });

  it('gives each key-pair family its own material kind (stored versions find their family)', () => {
    const byKind = new Map<string, KeyFamily>();
    for (const { family } of keyTypeRows()) {
      if (!family.materialKind) continue;
      const seen = byKind.get(family.materialKind);
      expect(seen === undefined || seen === family, family.materialKind).toBe(true);
      byKind.set(family.materialKind, family);
    }
  });

  it('tells every row apart by its Vault type id (key_size tells the dialects apart)', () => {
    const seen = new Set<string>();
    for (const row of keyTypeRows()) {
      const id = `${row.vaultId}/${row.family.keySized}`;
      expect(seen.has(id), `${row.name}: ${id}`).toBe(false);
      seen.add(id);
    }
  });

  // RSA generation is slow: one modulus size stands for its family's codecs.
  const rows = keyTypeRows().filter((r) => !r.rsaBits || r.rsaBits === 2048);
  it.each(rows.map((r) => [r.name, r] as const))(
    '%s: a generated version round-trips through its family',
    async (_name, row) => {
      const b = nodeBackend;
      const f = row.family;
      const policy = buildPolicy('k', { type: row.name });
      const g = await f.generate(b, row, policy);
      const v: KeyVersion = {
        key: g.key,
        hmac_key: g.hmacKey ?? b.randomBytes(32),
        creation_time: 1,
        time: '2024-01-01T00:00:00Z',
        convergent_version: 0,
        ...(g.material ? { asymmetric: g.material } : {}),
      };
      const exported = f.exportKey(v, '');
      const pub = f.asymmetric ? f.exportPublicKey(row, policy, v, '') : undefined;
      const same = (w: KeyVersion) => {
        expect(f.exportKey(w, '')).toBe(exported);
        if (pub !== undefined) expect(f.exportPublicKey(row, policy, w, '')).toBe(pub);
        expect(f.isPublicOnly(w)).toBe(false);
      };
      if (v.asymmetric) expect(materialFamily(v.asymmetric)).toBe(f);

      same(decodeVersion(encodeVersion(v), row));

      const entry = goJsonParse(goJsonEncode(encodeEntry(v, row)), 'entry') as Record<
        string,
        unknown
      >;
      const restored = await decodeEntry(new GoObject(entry), row, (seed) =>
        b.ed25519PublicKey({ seed }),
      );
      if (!restored) throw new Error('entry did not decode');
      same(f.restoreVersion(row, restored, policy.key_size, 1));

      const wrapped = f.byokMaterial(v);
      if (!wrapped) throw new Error('no byok material');
      if (f.importable) same({ ...v, ...(await f.importPrivate(b, row, wrapped)) });

      const read = f.readBodyPublicKey(b, policy, v, new Uint8Array(0));
      expect(read === undefined).toBe(!f.asymmetric);
      if (read) expect(await read).not.toBe('');
    },
    30_000,
  );

  it('has no family, type-name or material-kind branch outside the registry and families', () => {
    const patterns = forbiddenPatterns();
    const offences: string[] = [];
    for (const { file, text } of sources(SRC)) {
      if (ALLOWED.some((a) => a.test(file))) continue;
      text.split('\n').forEach((line, i) => {
        if (/^\s*(\*|\/\/)/.test(line)) return;
        for (const p of patterns)
          if (p.test(line)) offences.push(`src/${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offences).toEqual([]);
  });

  it('catches the branches it forbids', () => {
    const patterns = forbiddenPatterns();
    const hit = (line: string) => patterns.some((p) => p.test(line));
    expect(hit("if (info.family === 'hmac') {")).toBe(true);
    expect(hit("if (destInfo.family !== 'rsa') {")).toBe(true);
    expect(hit("if (p.type === 'ed25519')")).toBe(true);
    expect(hit("  case 'ecdsa-p256':")).toBe(true);
    expect(hit("if ('aes256-gcm96' === t)")).toBe(true);
    expect(hit('if (m.kind === `ec`)')).toBe(true);
    expect(hit('if (info.family === family)')).toBe(true);
    expect(hit('const n = info.family.name;')).toBe(true);
    expect(hit("if (type === 'encryption-key')")).toBe(false);
    expect(hit("if (kind === 'signature')")).toBe(false);
    expect(hit('info.family.exportKey(v, format)')).toBe(false);
  });
});
