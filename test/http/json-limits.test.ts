/**
 * The JSON shape limits (issue #15 item 8), through the dispatcher: exact
 * boundaries, strings whose brackets and escaped quotes must not count, the
 * handler's `jsonLimits` option and its validation.
 */
import { describe, expect, it } from 'vitest';
import { createHandler } from '../../adapters/http/index.js';
import { Transit } from '../../src/index.js';

const transit = new Transit({ autoRotate: false });

function hashWith(extra: string, jsonLimits?: Parameters<typeof createHandler>[1]) {
  const h = createHandler({ transit }, { auth: false, ...jsonLimits });
  return h.dispatch({
    method: 'POST',
    url: '/v1/transit/hash',
    headers: () => undefined,
    body: async () => `{"input":"YWJj","x":${extra}}`,
  });
}

const list = (n: number) => `[${Array(n).fill('0').join(',')}]`;
const nest = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;

describe('limits', () => {
  it('items per list and per object: the limit passes, one more is 400', async () => {
    expect((await hashWith(list(100_000)))?.status).toBe(200);
    const r = await hashWith(list(100_001));
    expect(r?.status).toBe(400);
    expect(r?.body).toContain('more than 100000 items');
    const obj = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    expect((await hashWith(obj(100_000)))?.status).toBe(200);
    expect((await hashWith(obj(100_001)))?.status).toBe(400);
  });

  it('nesting: the body itself is level 1; 64 levels pass, 65 are 400', async () => {
    expect((await hashWith(nest(63)))?.status).toBe(200);
    const r = await hashWith(nest(64));
    expect(r?.status).toBe(400);
    expect(r?.body).toContain('nesting deeper than 64');
  });

  it('values in all', async () => {
    const many = `[${Array(100).fill(list(5_000)).join(',')}]`; // 500,100 values
    const r = await hashWith(many);
    expect(r?.status).toBe(400);
    expect(r?.body).toContain('more than 500000 values');
  });

  it('brackets, commas and escaped quotes inside strings do not count', async () => {
    const s = JSON.stringify(`\\"${'[,'.repeat(20_000)}\\\\`);
    expect((await hashWith(s))?.status).toBe(200);
    // A string ending in an escaped backslash closes; the nesting after it counts.
    expect((await hashWith(`["a\\\\", ${nest(64)}]`))?.status).toBe(400);
    expect((await hashWith(`["a\\\\", ${nest(62)}]`))?.status).toBe(200);
    // An unterminated string is JSON.parse's 400, not a hang or a 500.
    expect((await hashWith('"abc'))?.status).toBe(400);
  });

  it('the jsonLimits option raises or lowers each limit, and is validated', async () => {
    const lower = { jsonLimits: { maxListItems: 1_000 } };
    expect((await hashWith(list(1_000), lower))?.status).toBe(200);
    expect((await hashWith(list(1_001), lower))?.status).toBe(400);
    const higher = { jsonLimits: { maxListItems: 200_000, maxValues: 1_000_000 } };
    expect((await hashWith(list(200_000), higher))?.status).toBe(200);
    expect((await hashWith(nest(3), { jsonLimits: { maxDepth: 3 } }))?.status).toBe(400);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() =>
        createHandler({ transit }, { auth: false, jsonLimits: { maxDepth: bad } }),
      ).toThrow(/jsonLimits.maxDepth/);
    }
  });
});
