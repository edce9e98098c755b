/**
 * A body Express already parsed (`express.json()`) is used as is (issue 23,
 * part 3): never stringified and parsed again, yet held to the same shape
 * limits, with the same answers as the same body sent as text.
 */
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, type TransitHandler } from '../../adapters/http/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';
import { b64 } from './helpers.js';

const LIMITS = { maxDepth: 4, maxListItems: 3, maxValues: 40 };

describe('a real Express app with express.json()', () => {
  let server: Server;
  let url = '';
  let handler: TransitHandler;
  let stringified = 0;

  beforeAll(async () => {
    handler = createHandler(
      { transit: new Transit({ storage: new MemoryStorage(), autoRotate: false }) },
      { auth: false, jsonLimits: LIMITS },
    );
    const app = express();
    app.use(express.json());
    // Any JSON.stringify of the parsed body would call this.
    app.use((req, _res, next) => {
      if (req.body && typeof req.body === 'object') {
        Object.defineProperty(req.body, 'toJSON', {
          value: () => {
            stringified++;
            return {};
          },
        });
      }
      next();
    });
    app.use('/vault', handler.node);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/vault`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const post = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('serves the parsed body without stringifying it', async () => {
    const enc = await post('/v1/transit/encrypt/k', { plaintext: b64('hi'), extra: 1 });
    expect(enc.status).toBe(200);
    const json = await enc.json();
    expect(json.data.ciphertext).toMatch(/^vault:v1:/);
    expect(json.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [extra]']);
    const dec = await post('/v1/transit/decrypt/k', { ciphertext: json.data.ciphertext });
    expect((await dec.json()).data.plaintext).toBe(b64('hi'));
    expect(stringified).toBe(0);
  });

  it.each([
    ['too deep', 'nesting deeper than 4', { a: { b: { c: { d: { e: 1 } } } } }],
    ['too many items', 'more than 3 items', { batch_input: [{}, {}, {}, {}] }],
    [
      'too many values',
      'more than 40 values',
      { a: Array.from({ length: 3 }, () => Array(3).fill({ x: 1, y: 2 })) },
    ],
    [
      'a field that does not convert',
      'expected an integer',
      { plaintext: 'eA==', key_version: 'x' },
    ],
  ])('answers %s exactly as for the same body sent as text', async (_, says, body) => {
    const viaExpress = await post('/v1/transit/encrypt/k', body);
    const asText = await handler.dispatch({
      method: 'POST',
      url: '/v1/transit/encrypt/k',
      headers: () => undefined,
      body: async () => JSON.stringify(body),
    });
    expect(viaExpress.status).toBe(asText?.status);
    expect(viaExpress.status).toBe(400);
    const text = await viaExpress.text();
    expect(text).toBe(asText?.body);
    expect(text).toContain(says);
  });
});
