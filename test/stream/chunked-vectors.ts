/**
 * Typed loader for the vendored Wycheproof Cobblestone files
 * (`test/vectors/wycheproof-chunked/`, see the README there), over
 * `readVectorFile` of `test/helpers/vectors.ts`. The shape is checked at load
 * time, so the runner can never pass by running zero cases.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { fromHex, REPO_ROOT, readVectorFile } from '../helpers/vectors.js';

/** Folder of the Cobblestone files (`NAME.json.gz`). */
export const WYCHEPROOF_CHUNKED_DIR = path.join(REPO_ROOT, 'test', 'vectors', 'wycheproof-chunked');

/** One `ChunkedEncryption` case, hex fields decoded (`ct` inflated). */
export interface ChunkedCase {
  readonly tcId: number;
  readonly comment: string;
  readonly flags: readonly string[];
  readonly result: string;
  readonly key: Uint8Array;
  readonly ctx: Uint8Array;
  readonly ct: Uint8Array;
  readonly msgLength: number | undefined;
  readonly msgSha512: string | undefined;
  readonly aeadKey: Uint8Array | undefined;
  readonly baseNonce: Uint8Array | undefined;
}

/** A whole file: its AEAD (IANA name) and cases. */
export interface ChunkedFile {
  readonly file: string;
  readonly aead: string;
  readonly cases: readonly ChunkedCase[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(file: string, where: string, what: string): never {
  throw new Error(`${file}: ${where}: ${what} (unexpected Wycheproof shape)`);
}

/** Loads and checks a `c2sp_chunked_encryption_*_test.json` file. */
export function loadChunkedVectors(file: string): ChunkedFile {
  const data = JSON.parse(readVectorFile(WYCHEPROOF_CHUNKED_DIR, file)) as unknown;
  if (!isRecord(data) || !Array.isArray(data.testGroups)) fail(file, 'top level', 'no testGroups');
  const cases: ChunkedCase[] = [];
  let aead = '';
  for (const g of data.testGroups as unknown[]) {
    if (!isRecord(g) || g.type !== 'ChunkedEncryption' || !Array.isArray(g.tests)) {
      fail(file, 'group', 'expected type ChunkedEncryption with tests');
    }
    if (typeof g.aead !== 'string' || g.sha !== 'SHA-512') fail(file, 'group', 'aead/sha');
    if (aead !== '' && aead !== g.aead) fail(file, 'group', 'two AEADs in one file');
    aead = g.aead;
    for (const t of g.tests as unknown[]) {
      if (!isRecord(t) || typeof t.tcId !== 'number' || !Array.isArray(t.flags)) {
        fail(file, 'test', 'tcId/flags');
      }
      for (const k of ['comment', 'result', 'key', 'ctx', 'ct']) {
        if (typeof t[k] !== 'string') fail(file, `tcId ${t.tcId}`, `field ${k}`);
      }
      const opt = (k: string) => (typeof t[k] === 'string' ? fromHex(t[k] as string) : undefined);
      cases.push({
        tcId: t.tcId,
        comment: t.comment as string,
        flags: t.flags as string[],
        result: t.result as string,
        key: fromHex(t.key as string),
        ctx: fromHex(t.ctx as string),
        ct: new Uint8Array(inflateSync(fromHex(t.ct as string))),
        msgLength: typeof t.msgLength === 'number' ? t.msgLength : undefined,
        msgSha512: typeof t.msgSha512 === 'string' ? t.msgSha512 : undefined,
        aeadKey: opt('aeadKey'),
        baseNonce: opt('baseNonce'),
      });
    }
  }
  if (cases.length !== data.numberOfTests || cases.length === 0) {
    fail(file, 'top level', `numberOfTests ${String(data.numberOfTests)} but ${cases.length}`);
  }
  return { file, aead, cases };
}

/** SHA-512 hex of `bytes` (node:crypto: independent of the backends under test). */
export const sha512Hex = (bytes: Uint8Array): string =>
  createHash('sha512').update(bytes).digest('hex');
