/**
 * Vault's key derivations (src/crypto/kdf.ts) on every backend:
 * - counter mode (`kdf: 0`): fixtures/kdf-counter.json — the 256-bit vector from
 *   Vault's kdf_test.go, the computed 128/384/1024-bit outputs, and the
 *   HMAC-SHA256 PRF vector;
 * - HKDF-SHA256 (`kdf: 1`): the derived-key vector of the transit reference
 *   (key `W+y8…qM=`, context "my-context").
 */
import { base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { counterKdfSha256, hkdfSha256 } from '../../src/crypto/kdf.js';
import { BACKENDS } from '../helpers/backends.js';
import { fromHex, loadKdfCounterFixture } from '../helpers/vectors.js';

const fx = loadKdfCounterFixture();
const utf8 = (s: string) => new TextEncoder().encode(s);

const HKDF_KEY = base64.decode('W+y8gGN0wbL2K9Oy5qO7YZ0kcw3/GFb5c8I0svSL2qM=');
const HKDF_INFO = utf8('my-context');
const HKDF_OUT = base64.decode('d8PNiMxWIqW2y7t4hger8WngsgY9ZDAvg99e6DcIElI=');

describe.each(BACKENDS)('kdf on %s', (_name, backend) => {
  const cm = fx.counter_mode_vector;

  it('fixture is self-consistent (context hex = utf8)', () => {
    expect(fromHex(cm.context_hex)).toEqual(utf8(cm.context_utf8));
    expect(fromHex(fx.prf_vector.data_hex)).toEqual(utf8(fx.prf_vector.data_utf8));
  });

  it('counter mode: Vault kdf_test.go 256-bit vector', () => {
    const out = counterKdfSha256(backend, fromHex(cm.key_hex), fromHex(cm.context_hex), cm.bits);
    expect(out).toEqual(fromHex(cm.expected_hex));
  });

  it('counter mode: 128/256/384/1024 bits (computed outputs)', () => {
    const outputs = fx.counter_mode_other_lengths.outputs;
    expect(outputs.map((o) => o.bits)).toEqual([128, 256, 384, 1024]);
    for (const o of outputs) {
      const out = counterKdfSha256(backend, fromHex(cm.key_hex), fromHex(cm.context_hex), o.bits);
      expect(out.length, `${o.bits}`).toBe(o.bits / 8);
      expect(out, `${o.bits}`).toEqual(fromHex(o.output_hex));
    }
    // bits is in every PRF input: the 128-bit output is not a prefix of the 256-bit one.
    const [o128, o256] = outputs;
    expect(o256?.output_hex.startsWith(o128?.output_hex ?? '')).toBe(false);
  });

  it('counter mode: the first block is HMAC-SHA256(key, BE32(0) ‖ context ‖ BE32(bits))', () => {
    const key = fromHex(cm.key_hex);
    const ctx = fromHex(cm.context_hex);
    const input = new Uint8Array([0, 0, 0, 0, ...ctx, 0, 0, 1, 0]);
    expect(counterKdfSha256(backend, key, ctx, 256)).toEqual(backend.hmac('sha256', key, input));
    expect(counterKdfSha256(backend, key, new Uint8Array(0), 8).length).toBe(1);
  });

  it('HMAC-SHA256 PRF vector (kdf_test.go TestHMACSHA256PRF)', () => {
    const p = fx.prf_vector;
    expect(backend.hmac('sha256', fromHex(p.key_hex), fromHex(p.data_hex))).toEqual(
      fromHex(p.expected_hex),
    );
  });

  it('counter mode rejects bits that are not a positive multiple of 8', () => {
    const key = fromHex(cm.key_hex);
    for (const bits of [0, -8, 7, 12, 255.5, Number.NaN, 2 ** 32]) {
      expect(() => counterKdfSha256(backend, key, new Uint8Array(0), bits), `${bits}`).toThrow(
        RangeError,
      );
    }
    expect(() =>
      counterKdfSha256(backend, key, new Uint8Array(0), '256' as unknown as number),
    ).toThrow(TypeError);
  });

  it('HKDF-SHA256 (empty salt): the reference derived-key vector', () => {
    expect(hkdfSha256(backend, HKDF_KEY, HKDF_INFO, 32)).toEqual(HKDF_OUT);
  });

  it('HKDF-SHA256 is prefix-stable in the length (16, 32, 64 bytes)', () => {
    expect(hkdfSha256(backend, HKDF_KEY, HKDF_INFO, 16)).toEqual(HKDF_OUT.subarray(0, 16));
    expect(hkdfSha256(backend, HKDF_KEY, HKDF_INFO, 64).subarray(0, 32)).toEqual(HKDF_OUT);
    expect(() => hkdfSha256(backend, HKDF_KEY, HKDF_INFO, 255 * 32 + 1)).toThrow(RangeError);
  });
});
