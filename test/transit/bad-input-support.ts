/**
 * Shared machinery of the bad-inputs matrix tests (bad-input.test.ts and its
 * case tables): the fixture, the Case shape and `probe`, which runs every bad
 * value through a call and reports what went wrong.
 * Not a test file (vitest only collects `*.test.ts`).
 */

import type { ErrorCode } from 'transitkit';
import { type MemoryStorage, type Transit, TransitError } from 'transitkit';
import { type BadInput, NEGATIVE, NOT_INTEGER } from '../helpers/bad-inputs.js';
import { b64, makeEngine, snapshot } from './support.js';

export const INPUT = b64('input');
export const extra = (...vals: [string, unknown][]): BadInput[] =>
  vals.map(([label, value]) => ({ label, value }));
export const BAD_INT = [...NOT_INTEGER, ...NEGATIVE];

export interface Fixture {
  transit: Transit;
  storage: MemoryStorage;
  /** A v1 ciphertext of key `aes` (2 versions), of `der` (derived, context "ctx"). */
  ct: string;
  ctDer: string;
  /** An HMAC of INPUT under `aes`. */
  mac: string;
}

/**
 * Keys: `aes` (aes256, 2 versions, min_encryption/decryption 2 so that trim
 * 1..2 is valid), `der` (derived), `hm` (hmac). `fresh` does not exist.
 */
export async function fixture(): Promise<Fixture> {
  const { transit, storage } = makeEngine();
  await transit.createKey('aes');
  await transit.rotateKey('aes');
  const ct = (await transit.encrypt('aes', { plaintext: b64('p') })).ciphertext;
  await transit.updateKeyConfig('aes', { min_encryption_version: 2, min_decryption_version: 2 });
  await transit.createKey('der', { derived: true });
  const ctDer = (await transit.encrypt('der', { plaintext: b64('p'), context: b64('ctx') }))
    .ciphertext;
  await transit.createKey('hm', { type: 'hmac' });
  const mac = (await transit.hmac('aes', { input: INPUT })).hmac;
  return { transit, storage, ct, ctDer, mac };
}

/** A call that builds a request with the bad value in one field. */
export type Call = (f: Fixture, v: unknown) => Promise<unknown>;

export interface Case {
  readonly name: string;
  readonly values: readonly BadInput[];
  readonly call: Call;
  /** A batch item field: failing only that item (index `item`) is acceptable. */
  readonly item?: number;
  readonly codes?: readonly ErrorCode[];
}

/** Run every value through `call` on a fresh fixture; return the problems found. */
export async function probe(c: Case): Promise<string[]> {
  const problems: string[] = [];
  const codes = c.codes ?? ['invalid_request'];
  for (const { label, value } of c.values) {
    const f = await fixture();
    const before = await snapshot(f.storage);
    let outcome: string | undefined;
    try {
      const r = await c.call(f, value);
      if (c.item !== undefined) {
        const items = (r as { batch_results?: { error?: string }[] }).batch_results;
        const it = items?.[c.item];
        if (!items || typeof it?.error !== 'string' || it.error === '') {
          outcome = `resolved without an error on item ${c.item}: ${JSON.stringify(r).slice(0, 160)}`;
        } else if (items.some((x, i) => i !== c.item && x.error !== undefined)) {
          outcome = `other items failed too: ${JSON.stringify(r).slice(0, 160)}`;
        }
      } else {
        outcome = `resolved: ${JSON.stringify(r, (_k, x) => (typeof x === 'bigint' ? String(x) : x))?.slice(0, 160)}`;
      }
    } catch (e) {
      if (!(e instanceof TransitError))
        outcome = `threw ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message ?? e)}`;
      else if (!codes.includes(e.code)) outcome = `TransitError code ${e.code}: ${e.message}`;
    }
    const after = await snapshot(f.storage);
    const changed = JSON.stringify(after) !== JSON.stringify(before);
    if (outcome) problems.push(`${label} → ${outcome}`);
    if (changed) {
      const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
        (k) => before[k] !== after[k],
      );
      problems.push(`${label} → storage changed (${keys.join(', ')})`);
    }
  }
  return problems;
}

export const item2 = (field: string, v: unknown, base: Record<string, unknown>) => [
  { ...base },
  { ...base, [field]: v },
];
