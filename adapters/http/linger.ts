/**
 * A lingering close (as Apache's): end a connection with a FIN after what was
 * written, then keep reading — and dropping, unparsed — what the client still
 * sends, until the client's own FIN or {@link LINGER_MS}. Closing with unread
 * data instead makes the kernel reset the connection, and a reset destroys
 * what the client had not read yet: an error answer to an upload, or the
 * authenticated output of a stream that failed after its 200.
 *
 * Structural types only (no `node:*` import): any `node:net` socket fits.
 * @module
 */

/** How long a closing connection keeps reading what the client still sends. @internal */
export const LINGER_MS = 2_000;

/** A readable whose data can be dropped (a socket, a request). @internal */
export interface Drainable {
  on(event: 'data', listener: (chunk: unknown) => void): unknown;
  removeAllListeners(event: 'data'): unknown;
  resume(): unknown;
}

/** The socket members a lingering close uses. @internal */
export interface LingerSocket extends Drainable {
  readonly destroyed: boolean;
  end(): unknown;
  destroy(): unknown;
  once(event: 'close' | 'end', listener: () => void): unknown;
  /** Node's stream handle (a `node:net` socket's internal). */
  _handle?: { reading?: boolean; readStart?: () => unknown } | null;
}

const discard = (): void => {};

/**
 * Close `socket` lingering. `request`, when given, is drained too: with
 * Node's native parser the rest of a body arrives there, not on the socket.
 * @internal
 */
export function lingerClose(socket: LingerSocket, request?: Drainable): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  (timer as { unref?: () => void }).unref?.();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  // Dropped unparsed: nothing more is dispatched on a closing connection.
  for (const from of request ? [socket, request] : [socket]) {
    from.removeAllListeners('data');
    from.on('data', discard);
    from.resume();
  }
  // On a socket Node's native parser was reading, the 'data' listener took
  // the parser off the handle (Node does so for any 'data' listener); a handle
  // the parser had stopped (a paused request body) stays stopped, since the
  // stream layer believes a read is pending. Start it, as Node's own 'resume'
  // listener would have.
  const handle = socket._handle;
  if (handle?.reading === false && typeof handle.readStart === 'function') {
    handle.reading = true;
    handle.readStart();
  }
}
