/**
 * `transit/random(/:source)(/:bytes)` read as Vault's `HandleRandomAPI` reads
 * it: a single segment that is no source is the byte count, parsed as Go's
 * `strconv.Atoi` (so `random/abc` is Vault's `error parsing url-set byte
 * count: …`, and `random/-1` is `"bytes" cannot be less than 1`); `seal` is a
 * source, answered from the platform CSPRNG with Vault's warning.
 */
import { describe, expect, it } from 'vitest';
import { vaultHandler } from './helpers.js';

async function post(path: string, body: unknown = {}) {
  const { vault, rootToken } = await vaultHandler();
  const r = await vault.fetch(
    new Request(`http://x/v1/transit/${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'x-vault-token': rootToken },
    }),
  );
  return { status: r.status, json: await r.json() };
}

const bytesOf = (r: { json: { data: { random_bytes: string } } }) =>
  Buffer.from(r.json.data.random_bytes, 'base64').length;

describe('transit/random URL segments', () => {
  it('a number is the byte count; a source is the source', async () => {
    expect(bytesOf(await post('random/8'))).toBe(8);
    expect(bytesOf(await post('random/all'))).toBe(32);
    expect(bytesOf(await post('random/all/12'))).toBe(12);
    expect(bytesOf(await post('random/platform', { bytes: 5 }))).toBe(5);
  });

  it('seal: platform bytes with Vault’s warning', async () => {
    const r = await post('random/seal/16');
    expect(r.status).toBe(200);
    expect(bytesOf(r)).toBe(16);
    expect(r.json.warnings).toEqual([
      'no seal/entropy augmentation available, using platform entropy source',
    ]);
  });

  it.each([
    ['random/abc', 'strconv.Atoi: parsing "abc": invalid syntax'],
    ['random/1.5', 'strconv.Atoi: parsing "1.5": invalid syntax'],
  ])('%s is a bad byte count, in Vault’s words', async (path, why) => {
    const r = await post(path);
    expect(r).toMatchObject({
      status: 400,
      json: { errors: [`error parsing url-set byte count: ${why}`] },
    });
  });

  it('random/-1 and random/+0 are counts below one', async () => {
    for (const path of ['random/-1', 'random/+0']) {
      expect(await post(path)).toMatchObject({
        status: 400,
        json: { errors: ['"bytes" cannot be less than 1'] },
      });
    }
  });

  it('an unknown source beside a count is Vault’s unsupported entropy source', async () => {
    expect(await post('random/foo', { bytes: 4 })).toMatchObject({ status: 400 });
    expect(await post('random', { source: 'foo' })).toMatchObject({
      status: 400,
      json: {
        errors: ['unsupported entropy source "foo"; must be "platform" or "seal", or "all"'],
      },
    });
  });
});
