/**
 * Reading leases: `POST /sys/leases/lookup` (one lease) and
 * `LIST /sys/leases/lookup/:prefix` (the ids under a prefix), reference §11.
 *
 * The listing is a directory view of the flat entry keys: ids directly under
 * the prefix, and each deeper folder once, ending with `/`. It skips a whole
 * folder with one `after` jump, so its cost is a page per child, never a read
 * of every lease underneath.
 * @module
 */
import { invalidRequest } from '../errors.js';
import { keyspace } from '../storage/keyspace.js';
import { checkPrefix, plausibleLeaseId, requireLeaseId, rfc3339 } from './lease.js';
import { type LeaseContext, readLease } from './lease-store.js';
import type { LeaseList, LeaseLookup } from './types.js';

const PAGE = 1000;
/** Sorts after every character a lease id may contain (ids are printable ASCII). */
const AFTER_FOLDER = '\uffff';

/**
 * @throws TransitError `invalid_request` `lease_id must be specified` / `invalid lease`.
 * @internal
 */
export async function lookupLease(ctx: LeaseContext, leaseId: unknown): Promise<LeaseLookup> {
  const id = requireLeaseId(leaseId);
  const snap = plausibleLeaseId(id) ? await readLease(ctx, id) : undefined;
  if (snap === undefined) throw invalidRequest('invalid lease');
  const { rec } = snap;
  const now = ctx.clock.now();
  const renewable = rec.renewable && !rec.irrevocable && rec.expire_time > now && rec.claim <= now;
  // Vault: expire - now rounded to the second, truncated to whole seconds.
  const ttl =
    rec.expire_time === 0
      ? 0
      : Math.max(0, Math.trunc((rec.expire_time - Math.round(now / 1000) * 1000) / 1000));
  return {
    id: rec.id,
    issue_time: rfc3339(rec.issue_time),
    expire_time: rec.expire_time === 0 ? null : rfc3339(rec.expire_time),
    last_renewal: rec.last_renewal === 0 ? null : rfc3339(rec.last_renewal),
    path: rec.path,
    renewable,
    ttl,
  };
}

/**
 * Ids and folders directly under `prefix` (a `/` is appended when missing).
 * @throws TransitError `invalid_request` for a malformed prefix.
 * @internal
 */
export async function listLeases(ctx: LeaseContext, prefixArg: unknown): Promise<LeaseList> {
  let prefix = checkPrefix(prefixArg);
  if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
  const base = keyspace.leaseEntryPrefix + prefix;
  const keys: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await ctx.storage.list(base, { after, limit: PAGE });
    let folder: string | undefined;
    for (const suffix of page) {
      if (folder !== undefined && suffix.startsWith(folder)) continue;
      const slash = suffix.indexOf('/');
      if (slash < 0) {
        keys.push(suffix);
        folder = undefined;
      } else {
        folder = suffix.slice(0, slash + 1);
        keys.push(folder);
      }
    }
    if (page.length < PAGE) return { keys };
    const last = page[page.length - 1] as string;
    after = folder !== undefined && last.startsWith(folder) ? folder + AFTER_FOLDER : last;
  }
}
