/**
 * The Node binding writes a reply with one `writeHead` (Content-Length
 * included) and one `end()` when the response has `writeHead` (issue #18),
 * and with `setHeader` otherwise; both give the same bytes on the wire.
 */
import { createServer, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  type NodeResponseLike,
  utf8Length,
  utf8LengthPortable,
  writeNodeReply,
} from '../../adapters/http/node.js';
import type { HttpReply } from '../../adapters/http/reply.js';

describe('utf8Length', () => {
  it.each([
    '',
    'plain ascii {"a":1}',
    'é and ß',
    '€ 日本',
    '😀 pair',
    'lone \ud800 high',
    'lone \udc00 low',
    'end \ud800',
  ])('agrees with Buffer.byteLength for %j', (s) => {
    expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'));
    expect(utf8LengthPortable(s)).toBe(Buffer.byteLength(s, 'utf8'));
  });
});

/** A response double recording what the binding calls. */
function recorder(withWriteHead: boolean) {
  const calls: string[] = [];
  const res: NodeResponseLike & { statusCode: number } = {
    statusCode: 200,
    headersSent: false,
    setHeader: (k, v) => calls.push(`set ${k}=${v}`),
    end: (chunk) => calls.push(`end ${chunk ?? ''}`),
    ...(withWriteHead
      ? {
          writeHead: (s: number, h: Record<string, unknown>) =>
            calls.push(`head ${s} ${JSON.stringify(h)}`),
        }
      : {}),
  };
  return { res, calls };
}

/** The members of a real response the binding uses, without `writeHead`. */
function withoutWriteHead(res: import('node:http').ServerResponse): NodeResponseLike {
  return {
    get statusCode() {
      return res.statusCode;
    },
    set statusCode(s: number) {
      res.statusCode = s;
    },
    get headersSent() {
      return res.headersSent;
    },
    setHeader: (k, v) => res.setHeader(k, v),
    end: (chunk) => res.end(chunk),
  };
}

describe('writeNodeReply', () => {
  const reply: HttpReply = {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: '{"k":"é"}',
  };

  it('writes status, headers and Content-Length in one writeHead, then one end()', () => {
    const { res, calls } = recorder(true);
    writeNodeReply(res, reply);
    expect(calls).toEqual([
      'head 200 {"content-type":"application/json","cache-control":"no-store","content-length":10}',
      'end {"k":"é"}',
    ]);
  });

  it('closes the connection of a 413, in both forms', () => {
    const tooBig: HttpReply = { ...reply, status: 413, body: '{"errors":[]}' };
    const a = recorder(true);
    writeNodeReply(a.res, tooBig);
    expect(a.calls[0]).toContain('"connection":"close"');
    const b = recorder(false);
    writeNodeReply(b.res, tooBig);
    expect(b.calls).toContain('set connection=close');
    expect(b.res.statusCode).toBe(413);
  });

  it('puts the same response on the wire as setHeader does', async () => {
    const wire = async (strip: boolean) => {
      const server = createServer((_req, res) => {
        res.setHeader('x-before', 'kept');
        writeNodeReply(strip ? withoutWriteHead(res) : res, reply);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const port = (server.address() as { port: number }).port;
      const got = await new Promise<{ headers: Record<string, unknown>; body: string }>(
        (resolve, reject) => {
          request({ port, host: '127.0.0.1', path: '/' }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => {
              body += c;
            });
            res.on('end', () => resolve({ headers: res.headers, body }));
          })
            .on('error', reject)
            .end();
        },
      );
      await new Promise((r) => server.close(r));
      const { date: _, ...headers } = got.headers;
      return { headers, body: got.body };
    };
    const fast = await wire(false);
    expect(fast.headers['content-length']).toBe('10');
    expect(fast.headers['x-before']).toBe('kept');
    expect(fast).toEqual(await wire(true));
  });
});
