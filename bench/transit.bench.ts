/**
 * In-process encrypt/decrypt of small and large plaintexts through
 * `transit.encrypt` on both backends, against raw node:crypto AES-256-GCM
 * (the limit) and raw noble AES-256-GCM, in the same run.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { gcm } from '@noble/ciphers/aes.js';
import { Transit } from 'transitkit';
import { type Case, compare, type Row } from './harness.js';

function rawNode(key: Buffer, pt: Buffer): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([iv, c.update(pt), c.final(), c.getAuthTag()]);
  return `vault:v1:${ct.toString('base64')}`;
}

function rawNodeOpen(key: Buffer, value: string): Buffer {
  const payload = Buffer.from(value.slice(9), 'base64');
  const d = createDecipheriv('aes-256-gcm', key, payload.subarray(0, 12));
  d.setAuthTag(payload.subarray(payload.length - 16));
  return Buffer.concat([d.update(payload.subarray(12, payload.length - 16)), d.final()]);
}

function rawNoble(key: Uint8Array, pt: Uint8Array): string {
  const iv = randomBytes(12);
  const ct = gcm(key, iv).encrypt(pt);
  return `vault:v1:${Buffer.concat([iv, ct]).toString('base64')}`;
}

export async function encryptBench(sizes: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  const key = randomBytes(32);
  const node = new Transit({ autoRotate: false });
  const noble = new Transit({ autoRotate: false, crypto: 'noble' });
  await node.createKey('bench');
  await noble.createKey('bench');
  for (const size of sizes) {
    const pt = randomBytes(size);
    const ptB64 = pt.toString('base64');
    const label = size >= 1024 * 1024 ? `${size / 1024 / 1024} MiB` : `${size} B`;
    const roundTrip = (t: Transit) => async () => {
      const { ciphertext } = await t.encrypt('bench', { plaintext: ptB64 });
      const { plaintext } = await t.decrypt('bench', { ciphertext });
      if (plaintext !== ptB64) throw new Error('round trip mismatch');
    };
    const cases: Case[] = [
      {
        name: 'raw node:crypto aes-256-gcm',
        check: () => {
          if (!rawNodeOpen(key, rawNode(key, pt)).equals(pt)) throw new Error('raw mismatch');
        },
        fn: () => rawNode(key, Buffer.from(ptB64, 'base64')),
      },
      {
        name: 'transit.encrypt (node)',
        check: roundTrip(node),
        fn: () => node.encrypt('bench', { plaintext: ptB64 }),
      },
      { name: 'raw noble aes-256-gcm', fn: () => rawNoble(key, Buffer.from(ptB64, 'base64')) },
      {
        name: 'transit.encrypt (noble)',
        check: roundTrip(noble),
        fn: () => noble.encrypt('bench', { plaintext: ptB64 }),
        vs: 'raw noble aes-256-gcm',
      },
    ];
    rows.push(...(await compare(`encrypt ${label}`, cases)));
  }
  await node.close();
  await noble.close();
  return rows;
}
