/** Set-up shared by the token store tests: a store with a root token on a fake clock. */
import type { TokenContext } from '../../src/auth/token-entry.js';
import { TokenStore } from '../../src/auth/token-store.js';
import { isTransitError } from '../../src/errors.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';

export async function setup() {
  const storage = new MemoryStorage();
  const clock = new FakeClock();
  const tokens = new TokenStore({ storage, clock });
  const root = await tokens.createRoot();
  const ctx = (await tokens.authenticate(root)) as TokenContext;
  return { storage, clock, tokens, root, ctx };
}

/** Every key and value in storage, as text. */
export async function dump(storage: MemoryStorage): Promise<string> {
  let out = '';
  for (const k of await storage.list(''))
    out += `${k}=${new TextDecoder().decode(await storage.get(k))}\n`;
  return out;
}

export const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return isTransitError(e) ? e.code : 'thrown';
  }
};
