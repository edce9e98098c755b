/**
 * Vault's batch status rule (reference §10), encrypt and decrypt only: a user error
 * in any item → 400, else an internal one → 500; with at least one success,
 * `partial_failure_response_code` replaces it; the body stays the full envelope with
 * `batch_results`. Rewrap and HMAC batches are always 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchReplyStatus, STATUS } from '../../adapters/http/status.js';
import { TransitError } from '../../src/errors.js';
import { runBatch } from '../../src/transit/batch.js';
import { b64, type CliServer, call, startDev } from './helpers.js';

let server: CliServer;
let good: string;
beforeAll(async () => {
  server = await startDev();
  const r = await call(server, 'POST', '/v1/transit/encrypt/b', {
    body: { plaintext: b64('one') },
  });
  good = r.json.data.ciphertext;
});
afterAll(async () => {
  await server.stop();
});

const encBatch = (items: unknown[], extra: object = {}) =>
  call(server, 'POST', '/v1/transit/encrypt/b', { body: { batch_input: items, ...extra } });

describe('encrypt', () => {
  it('all items succeed → 200, references echoed', async () => {
    const r = await encBatch([{ plaintext: b64('a'), reference: 'r1' }, { plaintext: b64('b') }]);
    expect(r.status).toBe(200);
    expect(r.json.data.batch_results.map((x: { reference: string }) => x.reference)).toEqual([
      'r1',
      '',
    ]);
  });

  it('one bad item → 400 with the envelope, not {"errors"}', async () => {
    const r = await encBatch([{ plaintext: b64('a') }, { plaintext: '!!' }]);
    expect(r.status).toBe(400);
    expect(r.json.errors).toBeUndefined();
    expect(r.json.data.batch_results[0].ciphertext).toMatch(/^vault:v1:/);
    expect(r.json.data.batch_results[1].error).toBeTruthy();
  });

  it('partial_failure_response_code replaces the status when some succeeded', async () => {
    const r = await encBatch([{ plaintext: b64('a') }, { plaintext: '!!' }], {
      partial_failure_response_code: 207,
    });
    expect(r.status).toBe(207);
    const s = await encBatch([{ plaintext: b64('a') }, { plaintext: '!!' }], {
      partial_failure_response_code: '299',
    });
    expect(s.status).toBe(299);
  });

  it('an out-of-range override only adds a warning', async () => {
    const r = await encBatch([{ plaintext: b64('a') }, { plaintext: '!!' }], {
      partial_failure_response_code: 700,
    });
    expect(r.status).toBe(400);
    expect(r.json.warnings).toContain(
      'invalid HTTP response code override from partial_failure_response_code, reverting to 400',
    );
  });

  it('all items fail → 400 whatever the override', async () => {
    const r = await encBatch([{ plaintext: '!!' }], { partial_failure_response_code: 207 });
    expect(r.status).toBe(400);
  });
});

describe('decrypt', () => {
  it('one bad item → 400; with an override → that code', async () => {
    const items = [{ ciphertext: good }, { ciphertext: 'vault:v1:AAAA' }];
    const r = await call(server, 'POST', '/v1/transit/decrypt/b', { body: { batch_input: items } });
    expect(r.status).toBe(400);
    expect(r.json.data.batch_results[0].plaintext).toBe(b64('one'));
    expect(r.json.data.batch_results[1].plaintext).toBe('');
    const o = await call(server, 'POST', '/v1/transit/decrypt/b', {
      body: { batch_input: items, partial_failure_response_code: 206 },
    });
    expect(o.status).toBe(206);
  });
});

describe('other batches are always 200', () => {
  it('rewrap', async () => {
    const r = await call(server, 'POST', '/v1/transit/rewrap/b', {
      body: { batch_input: [{ ciphertext: good }, { ciphertext: 'junk' }] },
    });
    expect(r.status).toBe(200);
    expect(r.json.data.batch_results[1].error).toBeTruthy();
  });

  it('hmac', async () => {
    const r = await call(server, 'POST', '/v1/transit/hmac/b', {
      body: { batch_input: [{ input: b64('a') }, { input: '!!' }] },
    });
    expect(r.status).toBe(200);
  });
});

describe('the rule itself', () => {
  const result = (fails: (Error | null)[]) =>
    runBatch(
      fails.map((_, i) => ({ i })),
      (item) => {
        const f = fails[item.i as number];
        if (f) throw f;
        return { ok: true };
      },
      (error) => ({ error }),
    );

  it('internal failures alone → 500; a user error among them → 400', async () => {
    expect(batchReplyStatus(await result([null, new Error('bug')]), undefined).status).toBe(500);
    expect(
      batchReplyStatus(
        await result([new Error('bug'), new TransitError('invalid_request', 'x')]),
        undefined,
      ).status,
    ).toBe(400);
    expect(batchReplyStatus(await result([null, new Error('bug')]), 207).status).toBe(207);
    expect(batchReplyStatus({ ciphertext: 'x' }, 207).status).toBe(200);
  });

  it('every error code has a status, and only internal is 5xx among caller-facing ones', () => {
    expect(STATUS.internal).toBe(500);
    expect(STATUS.invalid_request).toBe(400);
    expect(STATUS.permission_denied).toBe(403);
    expect(STATUS.payload_too_large).toBe(413);
  });
});
