/**
 * The active node's advertisement (Vault's `core/leader/<uuid>` entry): the
 * API address an operator or client reaches the active node at, so that
 * `sys/leader` on a standby can name it (`leader_address`).
 *
 * Every node that takes the shared leader lock writes its `apiAddr` (or `""`
 * without one) to `sys/leader/advert` through the barrier, at once, and while
 * it leads puts it back within a refresh interval if another write replaced
 * it (a former leader's, delayed); so a previous leader's address is replaced
 * on every takeover and cannot outlast the new leader's next check. What it cannot say: whether that leader is
 * still alive. Between a leader's death and the takeover (the lock's TTL and
 * one refresh at most) a standby still names it, as Vault does until its
 * lock is taken. A write that fails leaves the previous entry until the
 * next gain: the address is information, never authority.
 *
 * Runtime-neutral.
 * @module
 */
import { fromUtf8, utf8 } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import type { StorageAdapter } from '../storage/adapter.js';
import type { Leadership } from './leadership.js';

/** Where the advertisement lives (below the barrier: encrypted at rest). @internal */
export const LEADER_ADVERT_PATH = 'sys/leader/advert';

/**
 * Whether `value` is an API address: an absolute `http:` or `https:` URL
 * with a host (Vault's `api_addr`).
 * @internal
 */
export function isApiAddr(value: unknown): value is string {
  let url: URL;
  try {
    if (typeof value !== 'string') return false;
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
}

/**
 * `apiAddr` checked ({@link isApiAddr}), returned as given.
 * @throws TransitError `invalid_request` otherwise.
 * @internal
 */
export function checkApiAddr(value: unknown): string {
  if (!isApiAddr(value)) {
    throw invalidRequest(
      "'apiAddr' must be an http or https URL, such as https://vault.example:8200",
    );
  }
  return value;
}

/**
 * Write `address` (`""` for none) each time `leadership` is gained, and
 * while it leads, check the entry every refresh interval and write it again
 * when it names another: a former leader's write delayed by a partition
 * (sent when it gained, delivered after another took the lock) would
 * otherwise name it until the next takeover. Only for a shared lock: a node
 * that leads alone has no one to tell.
 * @returns the unsubscribe.
 * @internal
 */
export function advertiseLeader(
  storage: StorageAdapter,
  leadership: Leadership,
  address: string,
): () => void {
  if (!leadership.shared) return () => undefined;
  const body = JSON.stringify({ address });
  // A fresh body each time: the barrier may wipe what it was given.
  const write = () => storage.put(LEADER_ADVERT_PATH, utf8(body)).catch(() => undefined);
  // When the check in flight began: one at a time, and one whose storage
  // call never settles is given up after a few intervals.
  let checking: number | undefined;
  const repair = async () => {
    const now = Date.now();
    if (checking !== undefined && now - checking < 4 * leadership.refreshMs) return;
    if (!leadership.isLeader()) return;
    checking = now;
    try {
      const raw = await storage.get(LEADER_ADVERT_PATH);
      if ((raw === undefined || fromUtf8(raw) !== body) && leadership.isLeader()) await write();
    } catch {
      // Information, never authority: the next check tries again.
    } finally {
      if (checking === now) checking = undefined;
    }
  };
  const timer = setInterval(() => void repair(), leadership.refreshMs);
  (timer as { unref?: () => void }).unref?.();
  const off = leadership.onChange((leader) => {
    if (leader) void write();
  });
  return () => {
    clearInterval(timer);
    off();
  };
}

/**
 * The address the latest leader advertised; `""` when none did (no entry,
 * a leader without `apiAddr`, or an entry this version cannot read).
 * @internal
 */
export async function advertisedLeader(storage: StorageAdapter): Promise<string> {
  const raw = await storage.get(LEADER_ADVERT_PATH);
  if (raw === undefined) return '';
  try {
    const { address } = JSON.parse(fromUtf8(raw)) as { address?: unknown };
    return typeof address === 'string' ? address : '';
  } catch {
    return '';
  }
}
