/**
 * A tiny TCP proxy for tests of lost replies: forwards 127.0.0.1:<port> to a target
 * port. `armDrop(match)` makes it, for the next client->server chunk that
 * contains `match`, forward the request to the server but swallow the server's
 * reply and cut the client connection (the write happened, its reply is lost).
 * `hold()` delays new connections until `release()`. `intercept(match, onMatch)`
 * makes it keep the next client->server chunk containing `match` (never
 * forwarded) and call `onMatch` with both sockets of that connection.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  port = 0;
  #server: Server;
  #target: number;
  #armed: string | undefined;
  #intercept: { match: string; onMatch: (client: Socket, upstream: Socket) => void } | undefined;
  #sockets = new Set<Socket>();
  #held = false;
  #waiting: Array<() => void> = [];
  dropped = 0;
  connections = 0;

  private constructor(target: number) {
    this.#target = target;
    this.#server = createServer((client) => this.#onClient(client));
  }

  static async start(target: number): Promise<TcpProxy> {
    const p = new TcpProxy(target);
    await new Promise<void>((r) => p.#server.listen(0, '127.0.0.1', () => r()));
    const a = p.#server.address();
    p.port = typeof a === 'object' && a !== null ? a.port : 0;
    return p;
  }

  armDrop(match: string): void {
    this.#armed = match;
  }
  intercept(match: string, onMatch: (client: Socket, upstream: Socket) => void): void {
    this.#intercept = { match, onMatch };
  }
  hold(): void {
    this.#held = true;
  }
  release(): void {
    this.#held = false;
    for (const w of this.#waiting.splice(0)) w();
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  #onClient(client: Socket): void {
    this.connections++;
    this.#sockets.add(client);
    client.on('close', () => this.#sockets.delete(client));
    client.on('error', () => undefined);
    client.pause();
    const go = () => {
      const upstream = connect(this.#target, '127.0.0.1');
      this.#sockets.add(upstream);
      upstream.on('close', () => {
        this.#sockets.delete(upstream);
        client.destroy();
      });
      upstream.on('error', () => undefined);
      client.on('close', () => upstream.destroy());
      let dropReply = false;
      client.on('data', (d: Buffer) => {
        const kept = this.#intercept;
        if (kept !== undefined && d.includes(kept.match)) {
          this.#intercept = undefined;
          kept.onMatch(client, upstream);
          return;
        }
        if (this.#armed !== undefined && d.includes(this.#armed)) {
          this.#armed = undefined;
          dropReply = true;
        }
        upstream.write(d);
      });
      upstream.on('data', (d: Buffer) => {
        if (dropReply) {
          this.dropped++;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(d);
      });
      client.resume();
    };
    if (this.#held) this.#waiting.push(go);
    else go();
  }
}
