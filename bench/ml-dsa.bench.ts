/**
 * ML-DSA (issue 16): `transit.sign` / `transit.verify` for mldsa-44/65/87 on
 * both backends against the raw `@noble/post-quantum` call with the same key
 * (the expanded secret key of the exported seed) in the same run; target
 * ≥ 0.8. Raw signing is hedged, as transit's default. Every case is checked
 * first: the transit signature verifies with noble and the raw one verifies
 * through transit. Key generation time (the event-loop budget is 20 ms) is
 * printed as a latency row.
 */
import { ml_dsa44, ml_dsa65, ml_dsa87 } from '@noble/post-quantum/ml-dsa.js';
import { MemoryStorage, Transit } from 'transitkit';
import { type Case, compare, latencyUs, quick, type Row } from './harness.js';

const TARGET = { min: 0.8 };
const DATA = Buffer.from('the quick brown fox jumps over the lazy dog');
const INPUT = DATA.toString('base64');
const IMPL = { 44: ml_dsa44, 65: ml_dsa65, 87: ml_dsa87 } as const;
/**
 * Hedged ML-DSA signing time varies a lot from one signature to the next
 * (the rejection loop), and a call takes milliseconds: rounds long enough
 * for ~50 signatures (and a few hundred verifications) keep the ratio steady.
 */
const ROUNDS = quick ? {} : { roundMs: 250 };

export async function mlDsaBench(): Promise<Row[]> {
  const storage = new MemoryStorage();
  const node = new Transit({ storage, autoRotate: false });
  const noble = new Transit({ storage, autoRotate: false, crypto: 'noble' });
  const rows: Row[] = [];
  for (const level of [44, 65, 87] as const) {
    const type = `mldsa-${level}` as const;
    const dsa = IMPL[level];
    await node.createKey(type, { type, exportable: true });
    const seed = (await node.exportKey('signing-key', type, 1, { format: 'raw' })).keys['1'];
    const { secretKey, publicKey } = dsa.keygen(Buffer.from(seed as string, 'base64'));
    const rawSig = dsa.sign(DATA, secretKey);
    const rawValue = `vault:v1:${Buffer.from(rawSig).toString('base64')}`;
    const ours = (await node.sign(type, { input: INPUT })).signature;
    const check = (t: Transit) => async () => {
      const sig = Buffer.from((await t.sign(type, { input: INPUT })).signature.slice(9), 'base64');
      if (!dsa.verify(sig, DATA, publicKey)) throw new Error(`${type}: noble rejects transit`);
      if (!(await t.verify(type, { input: INPUT, signature: rawValue })).valid) {
        throw new Error(`${type}: transit rejects noble`);
      }
    };
    const signCases: Case[] = [
      { name: 'raw @noble/post-quantum sign', fn: () => dsa.sign(DATA, secretKey) },
      {
        name: 'transit.sign (node)',
        check: check(node),
        fn: () => node.sign(type, { input: INPUT }),
        target: TARGET,
      },
      {
        name: 'transit.sign (noble)',
        check: check(noble),
        fn: () => noble.sign(type, { input: INPUT }),
        target: TARGET,
      },
    ];
    rows.push(...(await compare(`sign ${type}`, signCases, ROUNDS)));
    const verifyCases: Case[] = [
      { name: 'raw @noble/post-quantum verify', fn: () => dsa.verify(rawSig, DATA, publicKey) },
      {
        name: 'transit.verify (node)',
        fn: () => node.verify(type, { input: INPUT, signature: ours }),
        target: TARGET,
      },
      {
        name: 'transit.verify (noble)',
        fn: () => noble.verify(type, { input: INPUT, signature: ours }),
        target: TARGET,
      },
    ];
    rows.push(...(await compare(`verify ${type}`, verifyCases, ROUNDS)));
    let n = 0;
    const us = await latencyUs(20, () => node.createKey(`${type}-gen-${n++}`, { type }));
    // An upper bound of the event-loop blocking (storage writes included); budget 20 ms.
    rows.push({
      group: `create ${type}`,
      name: 'transit.createKey latency',
      value: us,
      unit: 'µs',
    });
  }
  await node.close();
  await noble.close();
  return rows;
}
