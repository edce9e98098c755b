/**
 * Where `#default-backend` resolves to noble (browsers, workers, Deno: the
 * package's `imports` `default` condition), `crypto: 'node'` is refused with
 * `invalid_request` instead of silently running noble; `'default'` is noble.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('#default-backend', async () => {
  const noble = await import('../../src/crypto/noble/index.js');
  return { defaultBackend: noble.defaultBackend };
});

const { Transit } = await import('../../src/index.js');

describe("crypto: 'node' without Node's build", () => {
  it('is refused, and the default is noble', async () => {
    expect(() => new Transit({ crypto: 'node', autoRotate: false })).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message:
          "crypto 'node' needs Node's build of transitkit (node:crypto); this runtime has 'noble'",
      }),
    );
    const t = new Transit({ autoRotate: false });
    expect(t.backendName).toBe('noble');
    await t.close();
  });
});
