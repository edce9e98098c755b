/**
 * The line a device writes is exactly the JSON of the entry object the sink
 * receives (the response line reuses the request's serialised blocks), for
 * a request, a response with data, with an error, and a token reply.
 */
import { describe, expect, it } from 'vitest';
import { buildEntry, entryLine, formatOptions } from '../../src/audit/format.js';
import { saltHasher, tokenHasher } from '../../src/audit/hash.js';
import { nobleBackend } from '../../src/index.js';
import { request } from './support.js';

describe('entryLine', () => {
  it('is the JSON of buildEntry, prefix and newline included', () => {
    const hash = saltHasher(nobleBackend, new Uint8Array(32).fill(3));
    const h = { hash, tokens: tokenHasher(hash) };
    const variants: Record<string, string>[] = [
      {},
      { prefix: '@cee: ', hmac_accessor: 'false' },
      { log_raw: 'true' },
    ];
    for (const options of variants) {
      const o = formatOptions(options);
      const parts = new WeakMap();
      const input = request({ data: { plaintext: 'eA==', n: 1, list: ['a', { b: 'c' }] } });
      const responses = [
        undefined,
        { data: { ciphertext: 'vault:v1:x', key_version: 1 }, time: input.time + 1 },
        { error: 'permission "denied"', time: input.time + 2 },
        { auth: { client_token: 'hvs.t', accessor: 'a', policies: ['p'] }, time: input.time + 3 },
      ];
      for (const r of responses) {
        const want = `${o.prefix}${JSON.stringify(buildEntry(input, r, o, h))}\n`;
        expect(entryLine(input, r, o, h, parts)).toBe(want);
      }
    }
  });

  it('hashes a token once per token digest', () => {
    let calls = 0;
    const tokens = tokenHasher((v) => {
      calls++;
      return `h(${v})`;
    });
    const a = { token: 't', accessor: 'a', hash: 'digest-1' };
    expect(tokens(a)).toEqual({ token: 'h(t)', accessor: 'h(a)' });
    expect(tokens({ ...a })).toEqual({ token: 'h(t)', accessor: 'h(a)' });
    expect(calls).toBe(2);
    const noDigest = { token: 'u', accessor: 'b' };
    tokens(noDigest);
    tokens(noDigest);
    expect(calls).toBe(4);
  });
});
