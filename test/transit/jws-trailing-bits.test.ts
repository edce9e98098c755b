/**
 * A JWS signature body is read as Vault reads it
 * (base64.RawURLEncoding.DecodeString, non-strict: the unused trailing bits
 * of the last character ignored, CR/LF skipped), so a signature Vault
 * verifies verifies here too; @scure/base alone refused such bits.
 */
import { describe, expect, it } from 'vitest';
import { makeEngine } from './support.js';

const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('verify with marshaling_algorithm jws ignores unused trailing bits, as Go', () => {
  for (const type of ['ecdsa-p256', 'ed25519'] as const) {
    it(type, async () => {
      const { transit } = makeEngine();
      await transit.createKey('k', { type });
      const input = 'aGVsbG8=';
      const { signature } = (await transit.sign('k', {
        input,
        marshaling_algorithm: 'jws',
      })) as { signature: string };
      // 64 bytes -> 86 chars: the last one carries 2 bits of data and 4 unused.
      const last = ALPHA.indexOf(signature.slice(-1));
      const tweaked = signature.slice(0, -1) + ALPHA.charAt(last | 0x0f);
      expect(tweaked).not.toBe(signature);
      const r = (await transit.verify('k', {
        input,
        signature: tweaked,
        marshaling_algorithm: 'jws',
      })) as { valid: boolean };
      expect(r.valid).toBe(true);
    });
  }
});
