/**
 * The served token services of one test file (kept out of `helpers.ts`, which
 * a bench imports outside vitest). Not a test file.
 */
import { afterAll, beforeAll } from 'vitest';
import { AclPolicyStore, TokenStore, type TokenStoreOptions } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';
import { serveServices } from './helpers.js';

/**
 * A transit engine, a token store and a policy store on one memory store,
 * served ({@link serveServices}) for the tests of one file: started in its
 * `beforeAll`, closed in its `afterAll`. The handle's `url` and `root` read
 * the server once it is up (the shape {@link call} takes).
 */
export function serveTokenServicesForFile(tokens: Omit<TokenStoreOptions, 'storage'> = {}): {
  readonly url: string;
  readonly root: string;
} {
  let served: Awaited<ReturnType<typeof serveServices>> | undefined;
  const up = () => {
    if (!served)
      throw new Error('serveTokenServicesForFile: not served yet (read it inside a test)');
    return served;
  };
  beforeAll(async () => {
    const storage = new MemoryStorage();
    served = await serveServices({
      transit: new Transit({ storage, autoRotate: false }),
      tokens: new TokenStore({ storage, ...tokens }),
      policies: new AclPolicyStore({ storage }),
    });
  });
  afterAll(async () => {
    await served?.close();
  });
  return {
    get url() {
      return up().url;
    },
    get root() {
      return up().root;
    },
  };
}
