/**
 * The `LIST` rewriter (Node's parser refuses unknown methods): request lines only,
 * following HTTP/1.1 framing across chunk boundaries, pipelining, Content-Length and
 * chunked bodies; pass-through for what it does not understand. Then the CLI server
 * over raw sockets.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListMethodRewriter } from '../../adapters/http/list-method.js';
import { type CliServer, call, rawRequest, startDev } from './helpers.js';

/** Feed `input` in pieces of `size` bytes; return the concatenated output. */
function rewrite(input: string, size = input.length): string {
  const r = new ListMethodRewriter();
  const buf = Buffer.from(input, 'latin1');
  let out = '';
  for (let i = 0; i < buf.length; i += size)
    out += r.feed(buf.subarray(i, i + size)).toString('latin1');
  return out;
}

describe('ListMethodRewriter', () => {
  const list = 'LIST /v1/transit/keys HTTP/1.1\r\nHost: x\r\n\r\n';
  const get = 'GET /v1/transit/keys?list=true HTTP/1.1\r\nHost: x\r\n\r\n';

  it('rewrites LIST to GET ?list=true, keeping the query', () => {
    expect(rewrite(list)).toBe(get);
    expect(rewrite('LIST /a?after=b HTTP/1.1\r\n\r\n')).toBe(
      'GET /a?list=true&after=b HTTP/1.1\r\n\r\n',
    );
  });

  it('puts list=true first, where it wins over a list parameter of the URL', () => {
    expect(rewrite('LIST /a?list=false HTTP/1.1\r\n\r\n')).toBe(
      'GET /a?list=true&list=false HTTP/1.1\r\n\r\n',
    );
    expect(rewrite('LIST /a? HTTP/1.1\r\n\r\n')).toBe('GET /a?list=true& HTTP/1.1\r\n\r\n');
  });

  it('puts list=true before a fragment, so the request stays a list', () => {
    expect(rewrite('LIST /a#f HTTP/1.1\r\n\r\n')).toBe('GET /a?list=true#f HTTP/1.1\r\n\r\n');
    expect(rewrite('LIST /a?after=b#f#g?x HTTP/1.1\r\n\r\n')).toBe(
      'GET /a?list=true&after=b#f#g?x HTTP/1.1\r\n\r\n',
    );
  });

  it('is the same for every chunking', () => {
    const stream = `${list}POST /x HTTP/1.1\r\nContent-Length: 22\r\n\r\nLIST /in/body HTTP/1.1${list}`;
    const want = `${get}POST /x HTTP/1.1\r\nContent-Length: 22\r\n\r\nLIST /in/body HTTP/1.1${get}`;
    for (const size of [1, 2, 3, 7, 16, 1000])
      expect(rewrite(stream, size), `size ${size}`).toBe(want);
  });

  it('skips chunked bodies, extensions and trailers', () => {
    const body = '5;ext=1\r\nLIST \r\n0\r\nX-Trailer: LIST\r\n\r\n';
    const stream = `POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}${list}`;
    for (const size of [1, 5, 64]) {
      expect(rewrite(stream, size)).toBe(
        `POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${body}${get}`,
      );
    }
  });

  it('leaves other methods, lowercase list and malformed lines alone', () => {
    for (const s of [
      'GET /a HTTP/1.1\r\n\r\n',
      'list /a HTTP/1.1\r\n\r\n',
      'LIST  /a HTTP/1.1\r\n\r\n',
      'LISTEN /a HTTP/1.1\r\n\r\n',
    ]) {
      expect(rewrite(s)).toBe(s);
    }
  });

  it('passes everything through after an upgrade, a bad chunk size or an oversized line', () => {
    const up = `GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n${list}`;
    expect(rewrite(up)).toBe(up);
    const bad = `POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${list}`;
    expect(rewrite(bad)).toBe(bad);
    const long = `LIST /${'a'.repeat(20_000)} HTTP/1.1\r\n\r\n${list}`;
    expect(rewrite(long, 4096)).toBe(long);
  });
});

describe('ListMethodRewriter without copies', () => {
  it('forwards a chunk without a LIST line as the same buffer', () => {
    const r = new ListMethodRewriter();
    const head = Buffer.from('POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n', 'latin1');
    expect(r.feed(head)).toBe(head);
    const body = Buffer.from(`4000\r\n${'LIST '.repeat(3276)}LIST\r\n4`, 'latin1');
    expect(r.feed(body)).toBe(body);
  });

  // A header name in any mix of cases.
  const anyCase = (name: string) =>
    fc
      .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
      .map((up) => [...name].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
  // Headers that do not frame a request, some with a framing header's first letter.
  const others = fc
    .subarray([
      'Content-Type: application/json',
      'TE: trailers',
      'Cache-Control: no-cache',
      'user-agent: x',
      'Connection: keep-alive',
      'X-Vault-Token: LIST /x HTTP/1.1',
    ])
    .map((hs) => hs.map((h) => `${h}\r\n`).join(''));

  // One request of the generated stream, and what it must become.
  const request = fc.oneof(
    fc
      .record({ m: fc.constantFrom('LIST', 'GET', 'LINK', 'LI'), q: fc.boolean() })
      .map(({ m, q }) => {
        const target = q ? '/v1/k?a=b' : '/v1/k';
        const line = `${m} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`;
        const want =
          m === 'LIST' ? `GET /v1/k?list=true${q ? '&a=b' : ''} HTTP/1.1\r\nHost: x\r\n\r\n` : line;
        return [line, want] as const;
      }),
    fc
      .tuple(fc.string({ maxLength: 40 }), anyCase('Content-Length'), others)
      .map(([t, name, extra]) => {
        const body = `LIST ${t}`;
        const len = Buffer.byteLength(body, 'latin1');
        const r = `POST /x HTTP/1.1\r\n${extra}${name}: ${len}\r\n\r\n${body}`;
        return [r, r] as const;
      }),
    fc
      .tuple(
        fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
        anyCase('Transfer-Encoding'),
        others,
      )
      .map(([parts, name, extra]) => {
        const chunks = parts.map(
          (p) => `${Buffer.byteLength(`LIST ${p}`, 'latin1').toString(16)}\r\nLIST ${p}\r\n`,
        );
        const r = `POST /x HTTP/1.1\r\n${name}: chunked\r\n${extra}\r\n${chunks.join('')}0\r\n\r\n`;
        return [r, r] as const;
      }),
  );

  it('gives the same bytes for any request sequence and any chunking (property)', () => {
    fc.assert(
      fc.property(
        fc.array(request, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 64 }),
        (reqs, size) => {
          const input = reqs.map(([r]) => r).join('');
          const want = reqs.map(([, w]) => w).join('');
          expect(rewrite(input, size)).toBe(want);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the CLI server accepts LIST', () => {
  let server: CliServer;
  beforeAll(async () => {
    server = await startDev();
    await call(server, 'POST', '/v1/transit/keys/a', { body: {} });
    await call(server, 'POST', '/v1/transit/keys/b', { body: {} });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('LIST, GET ?list=true and pipelined requests on one connection', async () => {
    const auth = `X-Vault-Token: ${server.root}\r\n`;
    const body = '{"input":"TElTVCAvIEhUVFAvMS4x"}';
    const res = await rawRequest(
      server.url,
      `LIST /v1/transit/keys HTTP/1.1\r\nHost: x\r\n${auth}\r\n` +
        `POST /v1/transit/hash HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: ${body.length}\r\n\r\n${body}` +
        `LIST /v1/transit/keys?after=a HTTP/1.1\r\nHost: x\r\n${auth}Connection: close\r\n\r\n`,
    );
    const statuses = [...res.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    expect(statuses).toEqual(['200', '200', '200']);
    expect(res).toContain('"keys":["a","b"]');
    expect(res).toContain('"keys":["b"]');
  });

  it('LIST with a list parameter in the URL is still a list (as in Vault)', async () => {
    for (const q of ['list=false', 'list=0', 'list=', 'after=a&list=false']) {
      const res = await rawRequest(
        server.url,
        `LIST /v1/transit/keys?${q} HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${server.root}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.slice(0, 12), q).toBe('HTTP/1.1 200');
      expect(res, q).toContain(q.startsWith('after') ? '"keys":["b"]' : '"keys":["a","b"]');
    }
  });
});
