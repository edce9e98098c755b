/**
 * What importing the package costs before any call: the ASN.1, PKI, ML-DSA and
 * elliptic-curve libraries load on first use (signing, key pairs, CSRs,
 * import/export), not with the package. On Node, `import 'transitkit'` loaded
 * pkijs through the node backend's RSA padding and Ed25519 key objects (about
 * 0.35 s of start-up, and pkijs writes its engine on `globalThis`); a worker's
 * `transitkit/http` bundle carried them through the route table's schemas.
 */
import { describe, expect, it } from 'vitest';
import { loadedFrom, staticallyLoaded } from '../helpers/static-imports.js';

const HEAVY = /node_modules\/(pkijs|asn1js|@noble\/post-quantum)\//;
const CURVES = /node_modules\/@noble\/curves\/(nist|ed25519|ed448|abstract\/(weierstrass|edwards))/;

describe('what an import loads up front', () => {
  it('transitkit on Node: no PKI, ASN.1, ML-DSA or curve library', async () => {
    const loaded = await staticallyLoaded('src/index.ts', 'node');
    expect(loaded.has('src/crypto/node/index.ts')).toBe(true);
    expect(loadedFrom(loaded, HEAVY)).toEqual([]);
    expect(loadedFrom(loaded, CURVES)).toEqual([]);
  });

  it('transitkit/http for workers: no PKI, ASN.1 or ML-DSA library', async () => {
    const loaded = await staticallyLoaded('adapters/http/index.ts', 'browser');
    expect(loaded.has('adapters/http/routes.ts')).toBe(true);
    expect(loadedFrom(loaded, HEAVY)).toEqual([]);
  });
});
