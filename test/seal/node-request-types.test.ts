/**
 * TransitNode's `init` and `unseal` take their fields with the JSON types of
 * Vault's `InitRequest` and `UnsealRequest` (a JS caller too): a string
 * `reset` or a number `key` is refused with Go's encoding/json text, never
 * read loosely (a `reset: "true"` beside a key used to be ignored and the key
 * taken); `null` is absent.
 */
import { describe, expect, it } from 'vitest';
import { TransitNode } from '../../src/node/transit-node.js';
import type { InitRequest, UnsealRequest } from '../../src/node/types.js';
import { MemoryStorage } from '../../src/storage/memory.js';

const newNode = () => new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
const loose = <T>(r: Record<string, unknown>) => r as unknown as T;

describe('unseal request types', () => {
  it('refuses a non-boolean reset and a non-string key, and takes no share', async () => {
    const node = newNode();
    const { keys } = await node.init({ secret_shares: 3, secret_threshold: 2 });
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { key: keys[0], reset: 'true' },
        'json: cannot unmarshal string into Go struct field UnsealRequest.Reset of type bool',
      ],
      [
        { reset: 1 },
        'json: cannot unmarshal number into Go struct field UnsealRequest.Reset of type bool',
      ],
      [
        { key: 5 },
        'json: cannot unmarshal number into Go struct field UnsealRequest.Key of type string',
      ],
    ];
    for (const [r, message] of cases) {
      await expect(node.unseal(loose<UnsealRequest>(r)), JSON.stringify(r)).rejects.toMatchObject({
        code: 'invalid_request',
        message,
      });
    }
    expect(await node.sealStatus()).toMatchObject({ sealed: true, progress: 0 });
  });

  it('reads null as absent, and the right types as before', async () => {
    const node = newNode();
    const { keys } = await node.init({ secret_shares: 3, secret_threshold: 2 });
    expect(await node.unseal(loose<UnsealRequest>({ key: keys[0], reset: null }))).toMatchObject({
      progress: 1,
    });
    expect(await node.unseal(loose<UnsealRequest>({ reset: true, key: null }))).toMatchObject({
      progress: 0,
    });
    await node.unseal({ key: keys[1], reset: false });
    expect(await node.unseal({ key: keys[2] })).toMatchObject({ sealed: false });
  });
});

describe('init request types', () => {
  it("refuses a string or boolean share count with Go's text", async () => {
    const node = newNode();
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { secret_shares: '3', secret_threshold: 2 },
        'json: cannot unmarshal string into Go struct field InitRequest.secret_shares of type int',
      ],
      [
        { secret_shares: 3, secret_threshold: true },
        'json: cannot unmarshal bool into Go struct field InitRequest.secret_threshold of type int',
      ],
    ];
    for (const [r, message] of cases) {
      await expect(node.init(loose<InitRequest>(r)), JSON.stringify(r)).rejects.toMatchObject({
        code: 'invalid_request',
        message,
      });
    }
    expect(await node.initStatus()).toEqual({ initialized: false });
  });
});
