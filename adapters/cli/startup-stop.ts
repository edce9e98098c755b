/**
 * Stopping `transitkit server` while it starts (SIGTERM or SIGINT before it
 * runs, main.ts): the abort signal server.ts `startServer` races every step
 * that waits against, the error it then throws, and the bound on closing what
 * it opened. Node only.
 * @module
 */

/** Options of server.ts `startServer`. */
export interface StartOptions {
  /**
   * Aborted to stop start-up (SIGTERM or SIGINT before the server runs): the
   * step under way is abandoned, what was opened is closed, and
   * {@link StartupStopped} is thrown. Once `startServer` has resolved, the
   * signal is no longer read: stop with {@link RunningServer.close}.
   */
  signal?: AbortSignal;
}

/**
 * How long a stopped start-up waits for the node (a step it has under way,
 * such as writing a new store, finishes first; then sealing closes the audit
 * devices) and the storage to close, together, before it gives up on them:
 * a storage that stopped answering must not hold the exit.
 */
export const STOP_DEADLINE_MS = 3_000;

/** Thrown by server.ts `startServer` when {@link StartOptions.signal} stopped it. */
export class StartupStopped extends Error {
  /**
   * @param clean - false when the node or storage did not close within {@link STOP_DEADLINE_MS}.
   * @param unshown - what this start-up created and never printed (a store it
   *   initialised: `initial root token`, `unseal key`); the value itself is never kept here.
   */
  constructor(
    readonly clean = true,
    readonly unshown?: string,
  ) {
    super('start-up stopped');
    this.name = 'StartupStopped';
  }
}

/**
 * `p`, unless `signal` aborts first: then a rejection with
 * {@link StartupStopped}, at once. `p` is not cancelled; `late` receives its
 * value if it comes after the abort (to close what it opened), and its
 * rejection is swallowed.
 */
export function abortable<T>(
  signal: AbortSignal | undefined,
  p: Promise<T>,
  late?: (value: T) => void,
): Promise<T> {
  if (signal === undefined) return p;
  const stopped = new StartupStopped();
  let stop: (e: StartupStopped) => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const onAbort = () => stop(stopped);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  // `aborted` first: a signal already aborted wins over a `p` already settled
  return Promise.race([aborted, p]).then(
    (value) => {
      signal.removeEventListener('abort', onAbort);
      return value;
    },
    (e: unknown) => {
      signal.removeEventListener('abort', onAbort);
      if (e === stopped && late !== undefined) {
        // best effort: the process is stopping, so a failure here is dropped
        p.then(late).catch(() => undefined);
      }
      throw e;
    },
  );
}

/** `p`, or false once `deadline` (a `Date.now()` time) has passed; its rejection is swallowed. */
export async function settlesBy(p: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
