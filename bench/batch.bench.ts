/**
 * Batch encrypt (issue 8, §2): one `transit.encrypt` call with a
 * `batch_input` of 1,000 items of 64 bytes, against 1,000 single calls and
 * against 1,000 raw node:crypto AES-256-GCM seals (same base64 in and
 * `vault:v1:` out per item). Rates are items per second.
 *
 * Goals: the batch at least as fast per item as single calls (ratio ≥ 1 vs
 * singles) and ≥ 0.6 of raw. Correctness first: every batch result opens with
 * raw node:crypto, in order, with its `reference` echoed.
 * @module
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transit } from 'transitkit';
import { type Case, compare, type Row } from './harness.js';

const ITEMS = 1000;
const PREFIX = 'vault:v1:';

function seal(key: Buffer, ptB64: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = c.update(Buffer.from(ptB64, 'base64'));
  c.final();
  return PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64');
}

function open(key: Buffer, value: string): string {
  const p = Buffer.from(value.slice(PREFIX.length), 'base64');
  const d = createDecipheriv('aes-256-gcm', key, p.subarray(0, 12));
  d.setAuthTag(p.subarray(p.length - 16));
  const body = d.update(p.subarray(12, p.length - 16));
  d.final();
  return body.toString('base64');
}

export async function batchBench(): Promise<Row[]> {
  const t = new Transit({ autoRotate: false });
  await t.createKey('batch', { exportable: true });
  const exported = await t.exportKey('encryption-key', 'batch', 1);
  const key = Buffer.from(exported.keys['1'] as string, 'base64');
  const plaintexts = Array.from({ length: ITEMS }, () => randomBytes(64).toString('base64'));
  const batch_input = plaintexts.map((plaintext, i) => ({ plaintext, reference: `r${i}` }));
  const check = async () => {
    const { batch_results } = await t.encrypt('batch', { batch_input });
    batch_results.forEach((r, i) => {
      if (r.error || r.reference !== `r${i}` || open(key, r.ciphertext ?? '') !== plaintexts[i]) {
        throw new Error(`batch item ${i} is wrong`);
      }
    });
  };
  const cases: Case[] = [
    {
      name: `raw node:crypto ×${ITEMS}`,
      check,
      fn: () => {
        for (const p of plaintexts) seal(key, p);
      },
      units: ITEMS,
    },
    {
      name: `${ITEMS} single transit.encrypt`,
      fn: async () => {
        for (const plaintext of plaintexts) await t.encrypt('batch', { plaintext });
      },
      units: ITEMS,
    },
    {
      name: `batch_input of ${ITEMS}`,
      fn: () => t.encrypt('batch', { batch_input }),
      units: ITEMS,
      target: { min: 0.6 },
    },
    {
      name: `batch_input of ${ITEMS} vs singles`,
      fn: () => t.encrypt('batch', { batch_input }),
      units: ITEMS,
      vs: `${ITEMS} single transit.encrypt`,
      target: { min: 1 },
    },
  ];
  const rows = await compare('batch encrypt 64 B (items/s)', cases);
  await t.close();
  return rows.map((r) => ({ ...r, unit: 'items/s' }));
}
