/**
 * The push path of the streaming rows (adapters/http/stream-push.ts) on its
 * own, with a scripted body source and sink: what happens before the binding
 * attaches, failures before and after the first output, backpressure, the
 * byte limit, the re-check and a client that leaves. The real-socket tests
 * (stream-flow, stream-errors, stream-guard) run the same code through
 * node:http, Express and Koa.
 */
import { describe, expect, it } from 'vitest';
import {
  type PushHandlers,
  type PushSource,
  pushedBodyOf,
  pushReply,
} from '../../adapters/http/stream-push.js';
import { TransitError } from '../../src/errors.js';
import type { ByteCoder } from '../../src/stream/coders.js';

/** A body source driven by the test. */
function scripted() {
  let h: PushHandlers | undefined;
  const log: string[] = [];
  const source: PushSource = {
    start(handlers) {
      h = handlers;
      log.push('start');
    },
    pause: () => log.push('pause'),
    resume: () => log.push('resume'),
    stop: () => log.push('stop'),
  };
  return {
    source,
    log,
    /** Resolves once the reply has started the body (after the coder's start). */
    started: async () => {
      while (h === undefined) await new Promise((r) => setTimeout(r, 0));
    },
    data: (n: number, fill = 1) => h?.data(new Uint8Array(n).fill(fill)),
    end: () => h?.end(),
    error: (e: unknown) => h?.error(e),
  };
}

/** A sink that records what it got; `room` writes fit before it reports full. */
function sink(room = Number.POSITIVE_INFINITY) {
  const got: number[] = [];
  const events: string[] = [];
  return {
    got,
    events,
    sink: {
      write(b: Uint8Array) {
        got.push(b.byteLength);
        return got.length < room;
      },
      end: () => events.push('end'),
      abort: () => events.push('abort'),
    },
  };
}

/** An echo coder: `first` bytes at start, each piece out as is, `tail` bytes at the end. */
function echo(
  o: { first?: number; tail?: number; failOn?: number; slowFirst?: boolean; silent?: boolean } = {},
): ByteCoder {
  let pieces = 0;
  return {
    start: async () => (o.first ? new Uint8Array(o.first) : undefined),
    push(piece, emit) {
      pieces++;
      if (o.failOn === pieces)
        throw new TransitError('invalid_request', 'stream: message authentication failed');
      const bytes = piece as Uint8Array;
      if (o.silent) return;
      if (o.slowFirst && pieces === 1) return Promise.resolve().then(() => emit(bytes));
      emit(bytes);
    },
    finish(emit) {
      if (o.tail !== undefined) emit(new Uint8Array(o.tail));
    },
  };
}

const clock = (t = { now: 0 }) => ({ now: () => t.now, t });

function run(
  coder: ByteCoder,
  source: PushSource,
  extra: Partial<Parameters<typeof pushReply>[0]> = {},
) {
  const late: unknown[] = [];
  const reply = pushReply({
    coder,
    source,
    maxStreamBytes: Number.POSITIVE_INFINITY,
    clock: clock(),
    recheckMs: 5_000,
    failedLate: (e) => late.push(e),
    headers: { 'content-type': 'application/octet-stream' },
    ...extra,
  });
  return { reply, late };
}

describe('pushReply', () => {
  it('answers once the first output exists, then hands over what was held and the rest', async () => {
    const s = scripted();
    const { reply } = run(echo({ first: 10, tail: 3 }), s.source);
    const r = await reply;
    expect(r.status).toBe(200);
    s.data(100);
    const out = sink();
    const control = pushedBodyOf(r)?.(out.sink);
    expect(control).toBeDefined();
    s.data(50);
    s.end();
    expect(out.got).toEqual([10, 100, 50, 3]);
    expect(out.events).toEqual(['end']);
  });

  it('waits for body bytes when the coder has no first output (decrypt), and rejects a failure before any', async () => {
    const s = scripted();
    const { reply } = run(echo({ failOn: 1 }), s.source);
    await s.started();
    s.data(10);
    await expect(reply).rejects.toThrow('authentication failed');
    expect(s.log).toContain('stop');
  });

  it('an empty output that ends cleanly is a 200 with an empty body', async () => {
    const s = scripted();
    const { reply } = run(echo({ tail: 0 }), s.source);
    await s.started();
    s.end();
    const out = sink();
    pushedBodyOf(await reply)?.(out.sink);
    expect(out.got).toEqual([]);
    expect(out.events).toEqual(['end']);
  });

  it('a failure after the 200 aborts (never ends) and is reported, before or after attaching', async () => {
    for (const attachFirst of [true, false]) {
      const s = scripted();
      const { reply, late } = run(echo({ first: 1, failOn: 2 }), s.source);
      const r = await reply;
      const out = sink();
      if (attachFirst) pushedBodyOf(r)?.(out.sink);
      s.data(5);
      s.data(5);
      if (!attachFirst) pushedBodyOf(r)?.(out.sink);
      expect(out.events).toEqual(['abort']);
      expect(late).toHaveLength(1);
      expect(s.log).toContain('stop');
    }
  });

  it('a body cut short fails the stream: the coder never finishes', async () => {
    const s = scripted();
    const { reply } = run(echo({ first: 1, tail: 7 }), s.source);
    const out = sink();
    pushedBodyOf(await reply)?.(out.sink);
    s.data(4);
    s.error(new TransitError('invalid_request', 'request body was not fully received'));
    expect(out.got).toEqual([1, 4]);
    expect(out.events).toEqual(['abort']);
  });

  it('pauses the body while the response is full and resumes on drain', async () => {
    const s = scripted();
    const { reply } = run(echo({ first: 1 }), s.source);
    const out = sink(2);
    const control = pushedBodyOf(await reply)?.(out.sink);
    s.data(8);
    expect(s.log.at(-1)).toBe('pause');
    control?.drain();
    expect(s.log.at(-1)).toBe('resume');
  });

  it('pauses a body whose output piles up before the binding attaches', async () => {
    const s = scripted();
    const { reply } = run(echo({ first: 1 }), s.source);
    const r = await reply;
    for (let i = 0; i < 5; i++) s.data(64 * 1024);
    expect(s.log).toContain('pause');
    pushedBodyOf(r)?.(sink().sink);
    expect(s.log.at(-1)).toBe('resume');
  });

  it('queues pieces while the coder awaits, in order', async () => {
    const s = scripted();
    const { reply } = run(echo({ slowFirst: true }), s.source);
    await s.started();
    s.data(1, 1);
    s.data(2, 2);
    s.data(3, 3);
    s.end();
    const out = sink();
    pushedBodyOf(await reply)?.(out.sink);
    expect(out.got).toEqual([1, 2, 3]);
    expect(out.events).toEqual(['end']);
  });

  it('maxStreamBytes: past the limit is payload_too_large — a JSON error before the first output, an abort after', async () => {
    const s = scripted();
    const { reply } = run(echo({ silent: true }), s.source, { maxStreamBytes: 10 });
    await s.started();
    s.data(6);
    s.data(6);
    await expect(reply).rejects.toMatchObject({ code: 'payload_too_large' });

    const s2 = scripted();
    const second = run(echo({ first: 1 }), s2.source, { maxStreamBytes: 10 });
    const out = sink();
    pushedBodyOf(await second.reply)?.(out.sink);
    s2.data(6);
    s2.data(6);
    expect(out.got).toEqual([1, 6]);
    expect(out.events).toEqual(['abort']);
    expect(second.late[0]).toMatchObject({ code: 'payload_too_large' });
  });

  it('re-checks on the clock and aborts when the check fails', async () => {
    const s = scripted();
    const c = clock();
    let allowed = true;
    const guard = async () => {
      if (!allowed) throw new TransitError('permission_denied', 'permission denied');
    };
    const { reply, late } = run(echo({ first: 1 }), s.source, { clock: c, guard });
    const out = sink();
    pushedBodyOf(await reply)?.(out.sink);
    s.data(2);
    c.t.now = 6_000;
    allowed = false;
    s.data(2);
    await new Promise((r) => setTimeout(r, 0));
    expect(out.got).toEqual([1, 2]);
    expect(out.events).toEqual(['abort']);
    expect(late[0]).toMatchObject({ code: 'permission_denied' });
  });

  it('a client that leaves stops the body and nothing more is written', async () => {
    const s = scripted();
    const { reply } = run(echo({ first: 1, tail: 1 }), s.source);
    const out = sink();
    const control = pushedBodyOf(await reply)?.(out.sink);
    control?.gone();
    s.data(3);
    s.end();
    expect(out.got).toEqual([1]);
    expect(out.events).toEqual([]);
    expect(s.log).toContain('stop');
  });
});
