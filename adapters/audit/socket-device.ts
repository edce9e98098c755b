/**
 * Vault's `socket` audit device, for Node: each entry is one line sent to
 * `address` over `socket_type` `tcp` (default; `host:port`), `udp` (one
 * datagram per entry) or `unix` (a socket path).
 *
 * The connection is made on the first write and again after any failure.
 * **`write_timeout`** (default `2s`, as Vault; read as Vault's
 * `ParseDurationSecond`: seconds, or a Go duration such as `1.5s`, `1m30s`,
 * `250ms`, kept to the millisecond) bounds every write, connecting
 * included: a listener that stops reading (or an address that does not
 * answer) fails the entries of that write once it elapses, and the connection
 * is dropped and made again for the next one. Entries that arrive meanwhile
 * wait in the device's bounded buffer (src/audit/queue.ts), so a request
 * waits at most about twice `write_timeout` for a stalled listener, and is
 * refused at once when the buffer is full. Either way the entry is not
 * recorded there: with no other device recording it, the request is refused
 * (fail closed).
 *
 * Node only.
 * @module
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import type { AuditDevice, AuditDeviceFactory } from 'transitkit';
import { LineQueue } from '../../src/audit/queue.js';
import { invalidRequest } from '../../src/errors.js';
import { bufferOptions, durationOption } from './device-options.js';

/** Vault's default `write_timeout`. @internal */
export const DEFAULT_WRITE_TIMEOUT_MS = 2000;

type SocketType = 'tcp' | 'udp' | 'unix';

/** `host:port` or `[v6]:port`. */
function hostPort(address: string): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:([0-9]{1,5})$/.exec(address) ?? /^([^:]+):([0-9]{1,5})$/.exec(address);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) {
    throw invalidRequest(`options.address must be host:port, got ${JSON.stringify(address)}`);
  }
  return { host: m[1] as string, port };
}

class StreamDevice implements AuditDevice {
  readonly #connect: () => Socket;
  #socket: Socket | undefined;
  #ready: Promise<Socket> | undefined;
  readonly #queue: LineQueue;

  constructor(connect: () => Socket, timeoutMs: number, o: Readonly<Record<string, string>>) {
    this.#connect = connect;
    this.#queue = new LineQueue({
      ...bufferOptions(o),
      timeoutMs,
      write: (batch) => this.#send(batch),
      onTimeout: () => this.#drop(new Error('audit socket write timed out')),
    });
  }

  #open(): Promise<Socket> {
    this.#ready ??= new Promise<Socket>((resolve, reject) => {
      const s = this.#connect();
      this.#socket = s;
      s.setNoDelay(true);
      // Failures surface through the pending write; the socket is dropped for the next one.
      s.on('error', (e) => {
        if (this.#socket === s) this.#drop(e);
        reject(e);
      });
      s.on('close', () => {
        if (this.#socket === s) this.#drop(new Error('audit socket closed'));
        reject(new Error('audit socket closed'));
      });
      s.once('connect', () => resolve(s));
    });
    return this.#ready;
  }

  #drop(e: Error): void {
    const s = this.#socket;
    this.#socket = undefined;
    this.#ready = undefined;
    s?.destroy(e);
  }

  async #send(batch: string): Promise<void> {
    const s = await this.#open();
    await new Promise<void>((resolve, reject) => {
      s.write(batch, (e) => (e ? reject(e) : resolve()));
    });
  }

  write(line: string): Promise<void> {
    return this.#queue.push(line);
  }

  flush(): Promise<void> {
    return this.#queue.flush();
  }

  async close(): Promise<void> {
    await this.#queue.close();
    const s = this.#socket;
    this.#socket = undefined;
    this.#ready = undefined;
    if (s) await new Promise<void>((resolve) => s.end(resolve)).catch(() => undefined);
    s?.destroy();
  }
}

class DatagramDevice implements AuditDevice {
  readonly #socket: UdpSocket;
  readonly #host: string;
  readonly #port: number;
  readonly #queue: LineQueue;

  constructor(host: string, port: number, timeoutMs: number, o: Readonly<Record<string, string>>) {
    this.#host = host;
    this.#port = port;
    this.#socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    this.#socket.on('error', () => undefined);
    this.#socket.unref();
    this.#queue = new LineQueue({
      ...bufferOptions(o),
      timeoutMs,
      oneLinePerWrite: true,
      write: (line) =>
        new Promise<void>((resolve, reject) =>
          this.#socket.send(line, this.#port, this.#host, (e) => (e ? reject(e) : resolve())),
        ),
    });
  }

  write(line: string): Promise<void> {
    return this.#queue.push(line);
  }

  flush(): Promise<void> {
    return this.#queue.flush();
  }

  async close(): Promise<void> {
    await this.#queue.close();
    await new Promise<void>((resolve) => this.#socket.close(() => resolve()));
  }
}

/**
 * The `socket` device type: options `address` (required), `socket_type`
 * (`tcp`, `udp`, `unix`), `write_timeout` (default `2s`; seconds or a Go
 * duration such as `1.5s`), `buffer_entries`,
 * `buffer_bytes`.
 * @public
 */
export const socketAuditDevice: AuditDeviceFactory = {
  options: ['address', 'socket_type', 'write_timeout', 'buffer_entries', 'buffer_bytes'],
  async create({ options }) {
    const address = options.address;
    if (address === undefined || address === '')
      throw invalidRequest('options.address is required');
    const type = (options.socket_type || 'tcp') as SocketType;
    if (type !== 'tcp' && type !== 'udp' && type !== 'unix') {
      throw invalidRequest(
        `options.socket_type must be tcp, udp or unix, got ${JSON.stringify(type)}`,
      );
    }
    const timeoutMs = durationOption(options, 'write_timeout', DEFAULT_WRITE_TIMEOUT_MS);
    bufferOptions(options);
    if (type === 'unix')
      return new StreamDevice(() => netConnect({ path: address }), timeoutMs, options);
    const { host, port } = hostPort(address);
    if (type === 'udp') return new DatagramDevice(host, port, timeoutMs, options);
    return new StreamDevice(() => netConnect({ host, port }), timeoutMs, options);
  },
};
