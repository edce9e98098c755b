/**
 * Revokers: the functions that revoke the secret behind a lease, registered by
 * lease id prefix (longest prefix wins, as Vault's router picks a mount), and
 * how one call is run: with a timeout, its failure classified as retryable or
 * unrecoverable (Vault's `ErrUnrecoverable`, `ErrInvalidRequest`,
 * `ErrUnsupportedOperation`; a missing revoker is Vault's unsupported path).
 *
 * The timeout is real time, not the injected clock: it bounds how long an
 * attempt may wait on I/O, and a fake clock never moves while a promise hangs.
 * @module
 */
import { invalidRequest, isTransitError } from '../errors.js';
import { type LeaseRecord, rfc3339 } from './lease.js';
import type { RevokableLease, Revoker } from './types.js';

/** Why an attempt failed. @internal */
export interface RevokeFailure {
  message: string;
  /** true: retrying cannot help; the lease becomes irrevocable at once. */
  unrecoverable: boolean;
}

/** @internal */
export class RevokerRegistry {
  /** Longest prefix first. */
  #entries: Array<{ prefix: string; fn: Revoker }> = [];

  /**
   * Register `fn` for lease ids starting with `prefix` (replacing the one for the
   * same prefix). Returns a function that unregisters it.
   * @throws TransitError `invalid_request` for a non-string prefix or a non-function.
   */
  register(prefix: string, fn: Revoker): () => void {
    if (typeof prefix !== 'string') throw invalidRequest("'prefix' must be a string");
    if (typeof fn !== 'function') throw invalidRequest('revoker must be a function');
    const entry = { prefix, fn };
    this.#entries = this.#entries.filter((e) => e.prefix !== prefix);
    this.#entries.push(entry);
    this.#entries.sort((a, b) => b.prefix.length - a.prefix.length);
    return () => {
      this.#entries = this.#entries.filter((e) => e !== entry);
    };
  }

  /** The revoker for `id`, or `undefined`. */
  find(id: string): Revoker | undefined {
    return this.#entries.find((e) => id.startsWith(e.prefix))?.fn;
  }
}

/** What the revoker receives. @internal */
export function revokable(rec: LeaseRecord): RevokableLease {
  return {
    lease_id: rec.id,
    path: rec.path,
    data: rec.data,
    token: rec.token,
    auth: rec.auth,
    issue_time: rfc3339(rec.issue_time),
    expire_time: rfc3339(rec.expire_time),
    attempt: rec.attempts,
  };
}

/** True when retrying cannot help. @internal */
export function isUnrecoverable(err: unknown): boolean {
  return (
    (typeof err === 'object' &&
      err !== null &&
      (err as { unrecoverable?: unknown }).unrecoverable === true) ||
    isTransitError(err, 'invalid_request') ||
    isTransitError(err, 'unsupported_operation')
  );
}

/**
 * Run the revoker of `rec` once. Resolves to `undefined` on success or to the
 * failure (a throw, a timeout, no revoker); never rejects.
 * @internal
 */
export async function runRevoker(
  registry: RevokerRegistry,
  rec: LeaseRecord,
  timeoutMs: number,
): Promise<RevokeFailure | undefined> {
  const fn = registry.find(rec.id);
  if (fn === undefined) {
    return { message: `no revoker registered for lease "${rec.id}"`, unrecoverable: true };
  }
  // The AbortController is made only if the revoker reads `signal` (most never
  // do, and at a hundred thousand revocations it is a tenth of the work).
  let abort: AbortController | undefined;
  let timedOut = false;
  const context = {
    get signal(): AbortSignal {
      if (abort === undefined) {
        abort = new AbortController();
        if (timedOut) abort.abort();
      }
      return abort.signal;
    },
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<RevokeFailure>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      abort?.abort();
      resolve({ message: `revocation timed out after ${timeoutMs} ms`, unrecoverable: false });
    }, timeoutMs);
    (timer as { unref?: () => void }).unref?.();
  });
  const call = (async (): Promise<RevokeFailure | undefined> => {
    try {
      await fn(revokable(rec), context);
      return undefined;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { message, unrecoverable: isUnrecoverable(err) };
    }
  })();
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
