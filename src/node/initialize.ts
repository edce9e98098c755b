/**
 * Initialising a store (`sys/init`, or an auto-unseal node's first start):
 * the sealed keyring, then the root token behind a barrier on it. Storage has
 * no transaction across the two, so a failure after the keyring is written
 * takes the initialisation back: a store with a keyring but no root token
 * (and, for Shamir, shares never handed out) could never be used.
 * @module
 */
import { checkRootTokenId } from '../auth/token-entry.js';
import { TokenStore } from '../auth/token-store.js';
import type { Clock } from '../clock.js';
import type { CryptoBackend } from '../crypto/backend.js';
import type { StorageAdapter } from '../storage/adapter.js';
import { Barrier } from '../storage/barrier.js';
import { KEYRING_PATH, Keyring, type SealConfig, sealKeyring } from './keyring.js';

/** Where the token store keeps its entries (undone with a failed initialisation). */
const TOKEN_ROOT = 'auth/token/';

/** What initialising needs of the node. @internal */
export interface InitContext {
  readonly storage: StorageAdapter;
  readonly backend: CryptoBackend;
  readonly clock: Clock;
}

/**
 * Write the sealed keyring and the root token (`rootTokenId`, or a new one).
 * @returns the root token; `undefined` when another node initialised first.
 * @throws TransitError `invalid_request` for a bad `rootTokenId` (nothing
 * written); what storage throws (the initialisation taken back).
 * @internal
 */
export async function initializeStore(
  ctx: InitContext,
  rootKey: Uint8Array,
  seal: SealConfig,
  rootTokenId?: string,
): Promise<string | undefined> {
  if (rootTokenId !== undefined) checkRootTokenId(rootTokenId);
  const keyring = Keyring.create(ctx.backend, ctx.clock.now());
  const doc = sealKeyring(ctx.backend, rootKey, seal, keyring);
  if (!(await ctx.storage.compareAndSet(KEYRING_PATH, undefined, doc))) return undefined;
  const barrier = new Barrier(ctx.storage, ctx.backend);
  barrier.unseal(keyring);
  try {
    const tokens = new TokenStore({ storage: barrier, clock: ctx.clock, crypto: ctx.backend });
    return await tokens.createRoot(rootTokenId === undefined ? {} : { id: rootTokenId });
  } catch (e) {
    await undoInitialize(ctx.storage, doc);
    throw e;
  } finally {
    barrier.seal();
    keyring.wipe();
  }
}

/**
 * Remove what a failed initialisation wrote: the token entries (sealed under
 * a keyring that is going) and the keyring itself. Best effort: with storage
 * down, the error the caller gets is the one to report.
 */
async function undoInitialize(storage: StorageAdapter, doc: Uint8Array): Promise<void> {
  try {
    for (;;) {
      const page = await storage.list(TOKEN_ROOT, { limit: 1000 });
      if (page.length === 0) break;
      for (const k of page) await storage.delete(TOKEN_ROOT + k);
    }
    await storage.compareAndSet(KEYRING_PATH, doc, undefined);
  } catch {
    // See above.
  }
}
