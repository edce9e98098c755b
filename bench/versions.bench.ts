/**
 * Scale in versions (issue 8 §7, issue 18), run by scale.bench.ts after its
 * key-count rows: one key with 1,000 versions against one with 10 — encrypt
 * with the latest version, and rotate of an AES and of an Ed25519 key in
 * alternating rounds of CPU time. Neither may grow with the versions.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { type CreateKeyRequest, Transit } from 'transitkit';
import { gc, latencyUs, quick, type Row, versus } from './harness.js';
import { upperMedian } from './stats.js';

const SAMPLES = quick ? 500 : 5_000;
/**
 * Rotate's rounds (100 rotations a side each, ≈ 25 ms; ≈ 3 s in all): cheap, and on a
 * shared host one round's ratio spreads 0.3–4, so the median needs many of them.
 */
const ROTATE_ROUNDS = quick ? 2 : 96;
/** The Ed25519 rotate rounds (20 rotations a side, ≈ 10 ms each; key generation is the most of one). */
const ED_ROUNDS = quick ? 2 : 48;
const PLAINTEXT = randomBytes(64).toString('base64');
const FLAT = { max: 1.5 };
/** Rotate `key` `n` times; returns the mean rotate latency in µs. */
async function rotate(t: Transit, key: string, n: number): Promise<number> {
  return latencyUs(n, () => t.rotateKey(key));
}

/** One key with 1,000 versions against one with 10. */
export async function versionsBench(): Promise<Row[]> {
  const G = 'scale: versions';
  const t = new Transit({ autoRotate: false });
  const at = async (name: string, versions: number) => {
    await t.createKey(name);
    const first = (await t.encrypt(name, { plaintext: PLAINTEXT })).ciphertext;
    await rotate(t, name, versions - 1);
    const encrypt = await latencyUs(SAMPLES, () => t.encrypt(name, { plaintext: PLAINTEXT }));
    // Decrypting version 1 reads an archived version (cached after the first time).
    if ((await t.decrypt(name, { ciphertext: first })).plaintext !== PLAINTEXT) {
      throw new Error('versions: old ciphertext does not decrypt');
    }
    return encrypt;
  };
  const few = { encrypt: await at('v10', 10) };
  const many = { encrypt: await at('v1000', 1000) };
  const aes = await rotateRounds(t, 'v1000', 'aes256-gcm96', ROTATE_ROUNDS, 10);
  // The same for a key pair (issue 18: rotate must not grow with the versions of any type):
  // its read body lists every version's public key, and its archived versions can be
  // rewritten in place, which once made every rotate reload them all (8 ms at 1,000).
  await t.createKey('ed1000', { type: 'ed25519' });
  await rotate(t, 'ed1000', 999);
  const ed = await rotateRounds(t, 'ed1000', 'ed25519', ED_ROUNDS, 2);
  await t.close();
  return [
    versus(
      G,
      'encrypt latest, 1,000 versions',
      many.encrypt,
      'µs',
      {
        name: 'at 10 versions',
        value: few.encrypt,
      },
      FLAT,
    ),
    rotateRow(G, 'rotate, 1,000 versions', aes),
    rotateRow(G, 'rotate ed25519, 1,000 versions', ed),
  ];
}

/** A rotate row: the median of the rounds' ratios, large ÷ small. */
function rotateRow(G: string, name: string, r: RotateRounds): Row {
  return {
    group: G,
    name,
    value: upperMedian(r.manyUs),
    unit: 'µs',
    ratio: upperMedian(r.ratios),
    range: [Math.min(...r.ratios), Math.max(...r.ratios)],
    baseline: `at 10 versions (${upperMedian(r.fewUs).toFixed(0)} µs)`,
    target: { max: 1.2 },
  };
}

interface RotateRounds {
  ratios: number[];
  fewUs: number[];
  manyUs: number[];
}

/**
 * Rotate in alternating rounds (issue 18: ≤ 1.2× at 1,000 versions), each ratio within a
 * round. The small side rotates fresh keys of `type` at 10 versions, 10 times each, so that
 * they stay at 10–20 versions (rotating one key throughout would grow it to hundreds of
 * versions and hide the growth); the large side rotates `big` (1,000 versions at the start)
 * as many times. `keysPerRound` fresh keys a round.
 */
async function rotateRounds(
  t: Transit,
  big: string,
  type: CreateKeyRequest['type'],
  rounds: number,
  keysPerRound: number,
): Promise<RotateRounds> {
  const ratios: number[] = [];
  const fewUs: number[] = [];
  const manyUs: number[] = [];
  const EACH = 10;
  const perRound = quick ? EACH : keysPerRound * EACH;
  // Each side starts from a collected heap: a major collection made due by the other side's
  // garbage then falls on neither (each side's own garbage, and the collections it causes,
  // stay in its time).
  // Time is this process's CPU time (as the stream bench's): on a shared host, wall time over
  // a few milliseconds mostly measures the neighbours.
  const timed = async (keys: string[]) => {
    gc();
    const start = process.cpuUsage();
    for (const key of keys) await rotate(t, key, perRound / keys.length);
    const { user, system } = process.cpuUsage(start);
    return (user + system) / perRound;
  };
  for (let r = 0; r < rounds; r++) {
    const few: string[] = [];
    for (let i = 0; i < perRound / EACH; i++) {
      const name = `${type}-10-${r}-${i}`;
      await t.createKey(name, { type });
      await rotate(t, name, 9);
      few.push(name);
    }
    // Alternate which side goes first (a warm cache falls on both alike).
    if (r % 2) manyUs.push(await timed([big]));
    fewUs.push(await timed(few));
    if (r % 2 === 0) manyUs.push(await timed([big]));
    ratios.push((manyUs[r] as number) / (fewUs[r] as number));
  }
  return { ratios, fewUs, manyUs };
}
