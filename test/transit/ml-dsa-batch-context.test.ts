/**
 * ML-DSA `signature_context` in batch items, on both backends. Vault's single
 * mode puts the request's context in its one item, so a batch item carries
 * its own: it was silently dropped, so a batch sign "with context A" signed
 * with the request's (empty) context, and a batch verify item "with context B"
 * accepted a signature made under another context. An item's own context (and
 * `deterministic`) now wins over the request's; an item without one takes the
 * request's; a key type without contexts refuses it in that item.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { enginePair, type Pair } from './asym-support.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
type SignOut = { batch_results: Array<{ signature?: string; error?: string }> };
type VerifyOut = { batch_results: Array<{ valid?: boolean; error?: string }> };

let pair: Pair;
beforeAll(async () => {
  pair = enginePair();
  await pair.node.createKey('ml', { type: 'mldsa-44' as never });
  await pair.node.createKey('ed', { type: 'ed25519' });
});

describe.each(['node', 'noble'] as const)('%s backend', (backend) => {
  const t = () => (backend === 'node' ? pair.node : pair.noble);
  const verify = async (signature: string, ctx?: string) =>
    t().verify('ml', {
      input: b64('m'),
      signature,
      ...(ctx === undefined ? {} : { signature_context: b64(ctx) }),
    });

  it('batch sign: each item is signed under its own context, else the request’s', async () => {
    const res = (await t().sign('ml', {
      signature_context: b64('top'),
      batch_input: [
        { input: b64('m'), signature_context: b64('ctx-A') },
        { input: b64('m') },
      ] as never,
    })) as SignOut;
    const [a, top] = res.batch_results.map((r) => r.signature as string);
    expect(await verify(a as string, 'ctx-A')).toEqual({ valid: true });
    expect(await verify(a as string)).toEqual({ valid: false });
    expect(await verify(top as string, 'top')).toEqual({ valid: true });
  });

  it('batch verify: an item is checked under its own context', async () => {
    const { signature } = (await t().sign('ml', { input: b64('m') })) as { signature: string };
    const res = (await t().verify('ml', {
      batch_input: [
        { input: b64('m'), signature, signature_context: b64('ctx-B') },
        { input: b64('m'), signature },
      ] as never,
    })) as VerifyOut;
    expect(res.batch_results.map((r) => r.valid)).toEqual([false, true]);
  });

  it('a key type without contexts refuses an item’s context in that item', async () => {
    const res = (await t().sign('ed', {
      batch_input: [{ input: b64('m'), signature_context: b64('x') }, { input: b64('m') }] as never,
    })) as SignOut;
    expect(res.batch_results[0]?.error).toMatch(
      /signature_context and deterministic are not supported/,
    );
    expect(res.batch_results[1]?.signature).toMatch(/^vault:v1:/);
  });
});
