/**
 * Shared set-up of the ML-DSA engine tests (`ml-dsa.test.ts`,
 * `ml-dsa-mobility.test.ts`): the message, the parameter sets, a PKCS#8
 * builder for hand-made private-key forms, and the node/noble engine pair over
 * one storage. Not a test file.
 */
import * as asn1js from 'asn1js';
import type { Transit } from 'transitkit';
import { beforeAll } from 'vitest';
import { ML_DSA_OID } from '../../src/crypto/pki/ml-dsa.js';
import { type MobilityPair, mobilityPair } from './import-support.js';

/** The signed input, base64. */
export const MSG = Buffer.from('post-quantum').toString('base64');
/** The FIPS 204 parameter sets. */
export const LEVELS = [44, 65, 87] as const;

/** PKCS#8 of an ML-DSA-65 key with the given `privateKey` contents (asn1js). */
export function pkcs8With(inner: asn1js.AsnType): Uint8Array {
  const info = new asn1js.Sequence({
    value: [
      new asn1js.Integer({ value: 0 }),
      new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: ML_DSA_OID[65] })] }),
      new asn1js.OctetString({ valueHex: inner.toBER() }),
    ],
  });
  return new Uint8Array(info.toBER());
}

/**
 * The node and noble engines over one storage, made in the calling file's
 * `beforeAll`: `pair()` is the pair, `engine(0)` the node engine, `engine(1)`
 * the noble one.
 */
export function mlDsaEngines(): { pair: () => MobilityPair; engine: (i: 0 | 1) => Transit } {
  let made: MobilityPair | undefined;
  beforeAll(async () => {
    made = await mobilityPair();
  });
  const pair = (): MobilityPair => {
    if (!made) throw new Error('the engine pair is made in beforeAll');
    return made;
  };
  return { pair, engine: (i) => pair().engines[i]?.[1] as Transit };
}
