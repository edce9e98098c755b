/**
 * The Node binding's request-body adapters (adapters/http/stream-node.ts) on a
 * plain Node stream standing in for the request: the push source the
 * streaming rows drive, and the WHATWG body stream built on it (the fallback
 * for a streaming row without a coder).
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { NodeRequestLike } from '../../adapters/http/node.js';
import { nodeBodyStream, nodePushSource } from '../../adapters/http/stream-node.js';

const request = () => new PassThrough() as PassThrough & NodeRequestLike;

describe('nodePushSource', () => {
  it('delivers the pieces in order, then the end', async () => {
    const req = request();
    const seen: string[] = [];
    nodePushSource(req).start({
      data: (b) => seen.push(Buffer.from(b).toString()),
      end: () => seen.push('END'),
      error: () => seen.push('ERROR'),
    });
    req.write('ab');
    req.end('cd');
    await new Promise((r) => setImmediate(r));
    expect(seen.join('')).toBe('abcdEND');
  });

  it('a request closed before its end is an error, never an end', async () => {
    const req = request();
    const seen: unknown[] = [];
    nodePushSource(req).start({
      data: () => {},
      end: () => seen.push('END'),
      error: (e) => seen.push(e),
    });
    req.write('ab');
    req.destroy();
    await new Promise((r) => setImmediate(r));
    expect(seen).toHaveLength(1);
    expect(String(seen[0])).toContain('request body was not fully received');
  });

  it('stop detaches: nothing more is delivered', async () => {
    const req = request();
    const seen: string[] = [];
    const source = nodePushSource(req);
    source.start({
      data: (b) => seen.push(Buffer.from(b).toString()),
      end: () => {},
      error: () => {},
    });
    req.write('ab');
    await new Promise((r) => setImmediate(r));
    source.stop();
    req.write('cd');
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual(['ab']);
    expect(req.listenerCount('data')).toBe(0);
  });
});

describe('nodeBodyStream', () => {
  it('reads the body as a byte stream, pausing the request when its queue is full', async () => {
    const req = request();
    const stream = nodeBodyStream(req);
    const big = Buffer.alloc(300 * 1024, 1);
    req.write(big);
    await new Promise((r) => setImmediate(r));
    expect(req.isPaused()).toBe(true);
    req.end(Buffer.from('tail'));
    const got = Buffer.from(await new Response(stream).arrayBuffer());
    expect(got.length).toBe(big.length + 4);
    expect(got.subarray(-4).toString()).toBe('tail');
  });

  it('errors (never closes cleanly) when the request is cut', async () => {
    const req = request();
    const stream = nodeBodyStream(req);
    req.write('ab');
    req.destroy();
    await expect(new Response(stream).arrayBuffer()).rejects.toThrow();
  });
});
