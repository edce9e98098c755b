/**
 * HMAC (issue 8, §3): `transit.hmac` (sha2-256, 64-byte input) against raw
 * node:crypto `createHmac` with the version's HMAC key, base64 in and
 * `vault:v1:` out on both sides.
 *
 * Sign and verify through `transit.sign` / `transit.verify` on both backends
 * for ed25519, ecdsa-p256 and rsa-2048 (PSS, Vault's default), against raw
 * node:crypto `sign`/`verify` with the same key in the same run. Every case is
 * checked first: the transit signature verifies with node:crypto and the raw
 * one verifies through transit.
 */
import {
  constants,
  createHmac,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { MemoryStorage, Transit } from 'transitkit';
import { hmacFloor } from './call-floor.js';
import { type Case, compare, FLOOR, PROMISED, type Row } from './harness.js';

/** Issue 8's goal for the node backend against raw node:crypto. */
const TARGET = { min: 0.7 };
/** Issue 18's goals: HMAC SHA-256 and ECDSA-P256 signing at 0.8 of raw node:crypto. */
const TARGET_18 = { min: 0.8 };

const TYPES = ['ed25519', 'ecdsa-p256', 'rsa-2048'] as const;
const DATA = Buffer.from('the quick brown fox jumps over the lazy dog');
const INPUT = DATA.toString('base64');

/** node:crypto with Vault's defaults for the type (sha256; PSS with the largest salt). */
function rawOptions(type: (typeof TYPES)[number], key: KeyObject) {
  if (type === 'ed25519') return { hash: null, key };
  if (type === 'ecdsa-p256') return { hash: 'sha256', key };
  return {
    hash: 'sha256',
    key: {
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_MAX_SIGN,
    },
  };
}

/** HMAC-SHA256 of 64 bytes, both backends, against raw node:crypto. */
async function hmacBench(node: Transit, noble: Transit): Promise<Row[]> {
  await node.createKey('hmac', { exportable: true });
  const exported = await node.exportKey('hmac-key', 'hmac', 1);
  const key = Buffer.from(exported.keys['1'] as string, 'base64');
  const input = Buffer.from(DATA.toString('hex').slice(0, 64)).toString('base64');
  const raw = () =>
    `vault:v1:${createHmac('sha256', key).update(Buffer.from(input, 'base64')).digest('base64')}`;
  const floor = hmacFloor('hmac', key);
  const check = (t: Transit) => async () => {
    if ((await t.hmac('hmac', { input })).hmac !== raw()) throw new Error('hmac mismatch');
  };
  return compare('hmac sha2-256 64 B', [
    { name: 'raw node:crypto hmac', fn: raw },
    { name: PROMISED, fn: async () => raw() },
    {
      name: FLOOR,
      check: async () => {
        if ((await floor({ input })).hmac !== raw()) throw new Error('floor: hmac mismatch');
      },
      fn: () => floor({ input }),
    },
    {
      name: 'transit.hmac (node)',
      check: check(node),
      fn: () => node.hmac('hmac', { input }),
      target: TARGET_18,
    },
    {
      name: 'transit.hmac (noble)',
      check: check(noble),
      fn: () => noble.hmac('hmac', { input }),
      apart: true,
    },
  ]);
}

export async function signBench(): Promise<Row[]> {
  const storage = new MemoryStorage();
  const node = new Transit({ storage, autoRotate: false });
  const noble = new Transit({ storage, autoRotate: false, crypto: 'noble' });
  const rows: Row[] = await hmacBench(node, noble);
  for (const type of TYPES) {
    await node.createKey(type, { type, exportable: true });
    const exported = await node.exportKey('signing-key', type, 1, { format: 'pem' });
    const priv = createPrivateKey(exported.keys['1'] as string);
    const pub = createPublicKey(priv);
    const s = rawOptions(type, priv);
    const v = rawOptions(type, pub);
    const rawSig = sign(s.hash, DATA, s.key);
    const rawValue = `vault:v1:${rawSig.toString('base64')}`;
    const ours = (await node.sign(type, { input: INPUT })).signature;
    const check = (t: Transit) => async () => {
      const sig = Buffer.from((await t.sign(type, { input: INPUT })).signature.slice(9), 'base64');
      if (!verify(v.hash, DATA, v.key, sig))
        throw new Error(`${type}: node:crypto rejects transit`);
      if (!(await t.verify(type, { input: INPUT, signature: rawValue })).valid) {
        throw new Error(`${type}: transit rejects node:crypto`);
      }
    };
    const signCases: Case[] = [
      { name: `raw node:crypto sign`, fn: () => sign(s.hash, DATA, s.key) },
      // The node backend signs RSA in libuv's threadpool, so a 2–10 ms private-key
      // operation never blocks the event loop; the raw call there is its floor.
      ...(type === 'rsa-2048'
        ? [
            {
              name: 'raw node:crypto sign in the threadpool (callback), its floor',
              fn: () =>
                new Promise<Buffer>((done, fail) =>
                  sign(s.hash, DATA, s.key, (e, sig) => (e ? fail(e) : done(sig))),
                ),
            },
          ]
        : []),
      {
        name: `transit.sign (node)`,
        check: check(node),
        fn: () => node.sign(type, { input: INPUT }),
        target: type === 'ecdsa-p256' ? TARGET_18 : TARGET,
      },
      {
        name: `transit.sign (noble)`,
        check: check(noble),
        fn: () => noble.sign(type, { input: INPUT }),
        apart: true,
      },
    ];
    rows.push(...(await compare(`sign ${type}`, signCases)));
    const verifyCases: Case[] = [
      { name: `raw node:crypto verify`, fn: () => verify(v.hash, DATA, v.key, rawSig) },
      {
        name: `transit.verify (node)`,
        fn: () => node.verify(type, { input: INPUT, signature: ours }),
        target: TARGET,
      },
      {
        name: `transit.verify (noble)`,
        fn: () => noble.verify(type, { input: INPUT, signature: ours }),
        apart: true,
      },
    ];
    rows.push(...(await compare(`verify ${type}`, verifyCases)));
  }
  await node.close();
  await noble.close();
  return rows;
}
