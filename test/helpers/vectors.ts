/**
 * Loaders for the vendored test data: Wycheproof vectors
 * (`test/vectors/wycheproof/*.json.gz`, Apache-2.0) and the Vault/OpenBao
 * known-answer fixtures (`test/fixtures/vault/*.json`, MPL-2.0 values). Both
 * folders carry a README with their provenance; nothing here reads outside
 * the repository.
 *
 * A missing file or an unexpected shape throws at load time, so a suite can
 * never pass by silently running zero cases. Sources: test/crypto/README.md.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { hexToBytes } from '@noble/hashes/utils.js';

/** The repository root (this file is `test/helpers/vectors.ts`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Folder of the Wycheproof files (`NAME.json.gz`, gzip of upstream's `NAME.json`). */
export const WYCHEPROOF_DIR = path.join(REPO_ROOT, 'test', 'vectors', 'wycheproof');
/** Folder of the Wycheproof ML-DSA files (`NAME.json.gz`, same layout). */
export const WYCHEPROOF_MLDSA_DIR = path.join(REPO_ROOT, 'test', 'vectors', 'wycheproof-mldsa');
/** Folder of the transit reference fixtures (plain JSON). */
export const FIXTURES_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'vault');

/**
 * The text of a vendored vector file: `name` is upstream's file name
 * (`aes_gcm_test.json`); the stored `name.gz` is inflated. Throws (never
 * skips) when it is missing.
 */
export function readVectorFile(dir: string, name: string): string {
  const file = path.join(dir, `${name}.gz`);
  if (!existsSync(file)) {
    throw new Error(`test data file missing: ${file} (vendored vectors; see the README there)`);
  }
  return gunzipSync(readFileSync(file)).toString('utf8');
}

/** Upstream names (`NAME.json`) of the vendored files in a vector folder. */
export function vectorFileNames(files: readonly string[]): string[] {
  return files.filter((f) => f.endsWith('.json.gz')).map((f) => f.slice(0, -'.gz'.length));
}

/** A vendored Wycheproof file, parsed (no shape check: see the typed loaders). */
export function readWycheproofJson<T = unknown>(name: string): T {
  return JSON.parse(readVectorFile(WYCHEPROOF_DIR, name)) as T;
}

/** Fields common to every Wycheproof test case. */
export interface WycheproofCase {
  readonly tcId: number;
  readonly comment: string;
  readonly flags: readonly string[];
  /** `valid`, `invalid` or `acceptable`; kept as `string` so tests must handle anything else. */
  readonly result: string;
}
/** `aead_test_schema_v1.json` case (all hex). */
export interface AeadCase extends WycheproofCase {
  readonly key: string;
  readonly iv: string;
  readonly aad: string;
  readonly msg: string;
  readonly ct: string;
  readonly tag: string;
}
/** `mac_test_schema_v1.json` case (all hex). */
export interface MacCase extends WycheproofCase {
  readonly key: string;
  readonly msg: string;
  readonly tag: string;
}
/** `hkdf_test_schema_v1.json` case (hex, `size` in bytes). */
export interface HkdfCase extends WycheproofCase {
  readonly ikm: string;
  readonly salt: string;
  readonly info: string;
  readonly size: number;
  readonly okm: string;
}
/** A test group: its parameters (sizes in bits) and cases. */
export interface WycheproofGroup<C> {
  readonly type: string;
  readonly keySize: number;
  readonly ivSize?: number;
  readonly tagSize?: number;
  readonly tests: readonly C[];
}
/** A whole Wycheproof file. */
export interface WycheproofFile<C> {
  readonly file: string;
  readonly algorithm: string;
  readonly numberOfTests: number;
  readonly testGroups: readonly WycheproofGroup<C>[];
}

type Schema = {
  readonly groupType: string;
  readonly strings: string[];
  readonly numbers: string[];
};
const COMMON = ['comment', 'result'];
const SCHEMAS = {
  aead: {
    groupType: 'AeadTest',
    strings: [...COMMON, 'key', 'iv', 'aad', 'msg', 'ct', 'tag'],
    numbers: [],
  },
  mac: { groupType: 'MacTest', strings: [...COMMON, 'key', 'msg', 'tag'], numbers: [] },
  hkdf: {
    groupType: 'HkdfTest',
    strings: [...COMMON, 'ikm', 'salt', 'info', 'okm'],
    numbers: ['size'],
  },
} as const satisfies Record<string, Schema>;

/** Reads and parses a JSON file; throws (never skips) when it is missing. */
function readJson(file: string): unknown {
  if (!existsSync(file)) {
    throw new Error(
      `test data file missing: ${file}. The vendored test data is part of the repository; suites are never skipped.`,
    );
  }
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(file: string, where: string, what: string): never {
  throw new Error(`${file}: ${where}: ${what} (unexpected Wycheproof shape)`);
}

/** Checks the shape of a Wycheproof file against a schema, then returns it typed. */
function loadWycheproof<C>(file: string, schema: Schema): WycheproofFile<C> {
  const data = JSON.parse(readVectorFile(WYCHEPROOF_DIR, file)) as unknown;
  if (!isRecord(data) || !Array.isArray(data.testGroups)) fail(file, 'top level', 'no testGroups');
  if (typeof data.algorithm !== 'string' || typeof data.numberOfTests !== 'number') {
    fail(file, 'top level', 'algorithm/numberOfTests');
  }
  let count = 0;
  for (const group of data.testGroups as unknown[]) {
    if (!isRecord(group) || group.type !== schema.groupType || !Array.isArray(group.tests)) {
      fail(file, 'group', `expected type ${schema.groupType} with tests`);
    }
    if (typeof group.keySize !== 'number') fail(file, 'group', 'keySize');
    for (const t of group.tests as unknown[]) {
      if (!isRecord(t) || typeof t.tcId !== 'number' || !Array.isArray(t.flags)) {
        fail(file, 'test', 'tcId/flags');
      }
      for (const k of schema.strings) {
        if (typeof t[k] !== 'string') fail(file, `tcId ${t.tcId}`, `field ${k} is not a string`);
      }
      for (const k of schema.numbers) {
        if (typeof t[k] !== 'number') fail(file, `tcId ${t.tcId}`, `field ${k} is not a number`);
      }
      count++;
    }
  }
  if (count !== data.numberOfTests || count === 0) {
    fail(file, 'top level', `numberOfTests ${String(data.numberOfTests)} but ${count} cases`);
  }
  return { file, ...(data as Omit<WycheproofFile<C>, 'file'>) };
}

/** Loads an `aead_test_schema_v1` file (AES-GCM, (X)ChaCha20-Poly1305). */
export const loadAeadVectors = (file: string): WycheproofFile<AeadCase> =>
  loadWycheproof<AeadCase>(file, SCHEMAS.aead);
/** Loads a `mac_test_schema_v1` file (HMAC). */
export const loadMacVectors = (file: string): WycheproofFile<MacCase> =>
  loadWycheproof<MacCase>(file, SCHEMAS.mac);
/** Loads an `hkdf_test_schema_v1` file. */
export const loadHkdfVectors = (file: string): WycheproofFile<HkdfCase> =>
  loadWycheproof<HkdfCase>(file, SCHEMAS.hkdf);

/** `fixtures/kdf-counter.json` (the fields the tests use). */
export interface KdfCounterFixture {
  readonly counter_mode_vector: {
    readonly key_hex: string;
    readonly context_hex: string;
    readonly context_utf8: string;
    readonly bits: number;
    readonly expected_hex: string;
  };
  readonly counter_mode_other_lengths: {
    readonly outputs: readonly { readonly bits: number; readonly output_hex: string }[];
  };
  readonly prf_vector: {
    readonly key_hex: string;
    readonly data_hex: string;
    readonly data_utf8: string;
    readonly expected_hex: string;
  };
}

/** `fixtures/hash-vectors.json` (the fields the tests use). */
export interface HashVectorsFixture {
  readonly input_b64: string;
  readonly input_utf8: string;
  readonly vectors: readonly {
    readonly algorithm: string;
    readonly format: 'hex' | 'base64';
    readonly expected_sum: string;
  }[];
  readonly error_cases: readonly { readonly request_data: Record<string, unknown> }[];
}

/** Loads a reference fixture, checking that the given top-level keys exist. */
function loadFixture<T>(file: string, keys: readonly string[]): T {
  const data = readJson(path.join(FIXTURES_DIR, file));
  if (!isRecord(data)) throw new Error(`${file}: not a JSON object`);
  for (const k of keys) if (!(k in data)) throw new Error(`${file}: missing key ${k}`);
  return data as T;
}

/** Loads `kdf-counter.json`. */
export const loadKdfCounterFixture = (): KdfCounterFixture =>
  loadFixture('kdf-counter.json', [
    'counter_mode_vector',
    'counter_mode_other_lengths',
    'prf_vector',
  ]);

/** Loads `hash-vectors.json`. */
export const loadHashVectorsFixture = (): HashVectorsFixture =>
  loadFixture('hash-vectors.json', ['input_b64', 'vectors', 'error_cases']);

/** Hex → bytes (strict: even length, hex digits only). */
export const fromHex = (hex: string): Uint8Array => hexToBytes(hex);
