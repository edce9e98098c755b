/**
 * The leases of a token (Vault's `RevokeByToken`). A lease issued with a
 * `token` has an index key `sys/leases/token/<token key>/<lease id>`, written
 * before its entry and removed after it (lease-store.ts `transition`).
 * Revoking the token queues the revocation of every lease listed there: as
 * Vault, which expires them at once and revokes them in the background, the
 * queue is stored before the call returns, so a restart finishes it.
 *
 * A lease issued while its token is being revoked is caught from either side:
 * the issuer writes the index key, then the entry, then asks whether the token
 * still exists (`tokenExists`); the revoker deletes the token, then lists the
 * index. Either the listing sees the key or the issuer sees the token gone and
 * revokes its lease itself (issue-renew.ts).
 * @module
 */
import { encodeHex } from '../encoding.js';
import { internal } from '../errors.js';
import { keyspace } from '../storage/keyspace.js';
import type { Snapshot } from './lease.js';
import { type LeaseContext, readLease } from './lease-store.js';
import { Pacer, runPool } from './pool.js';
import { revokeLater } from './revoke.js';

/** What a token key may be: a storage path segment, at most 128 characters. */
const TOKEN_KEY = /^[A-Za-z0-9_.=+-]{1,128}$/;

/** The default token key: hex SHA-256 of the token (WebCrypto: any runtime). @internal */
export async function sha256TokenKey(token: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
  return encodeHex(new Uint8Array(digest));
}

/**
 * The index key of `token`'s leases, checked.
 * @throws TransitError `internal` when the `tokenKey` option returned something unusable.
 * @internal
 */
export async function tokenKeyOf(ctx: LeaseContext, token: string): Promise<string> {
  const key = await ctx.tokenKey(token);
  if (typeof key !== 'string' || !TOKEN_KEY.test(key) || key === '.' || key === '..') {
    throw internal('the tokenKey option returned an unusable key');
  }
  return key;
}

/**
 * Queue the revocation of every lease indexed under `key`, a page at a time;
 * index keys whose entry is gone (left by a crash between the two deletes)
 * are dropped. Returns how many leases were queued or already being revoked.
 * @internal
 */
export async function revokeByTokenKey(ctx: LeaseContext, key: string): Promise<number> {
  const prefix = keyspace.leaseTokenPrefix(key);
  let total = 0;
  let after: string | undefined;
  for (;;) {
    const ids = await ctx.storage.list(prefix, { after, limit: 1000 });
    if (ids.length === 0) return total;
    const live: string[] = [];
    const read = new Map<string, Snapshot>();
    await runPool(ids, ctx.concurrency, new Pacer(ctx.concurrency), async (id) => {
      try {
        const snap = await readLease(ctx, id);
        if (snap === undefined) await ctx.storage.delete(prefix + id);
        else {
          live.push(id);
          read.set(id, snap); // queued from this read, not read again
        }
      } catch {
        live.push(id); // queued anyway: its own read reports the failure
      }
    });
    await revokeLater(ctx, live, read);
    total += live.length;
    after = ids[ids.length - 1];
    if (ids.length < 1000) return total;
  }
}
