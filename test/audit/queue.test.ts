/**
 * The device buffer (src/audit/queue.ts): lines leave in the order accepted,
 * lines arriving during a write go out together in the next one, a full
 * buffer refuses at once, and a write that does not complete in time fails
 * its lines and lets the next batch go.
 */
import { describe, expect, it } from 'vitest';
import { LineQueue } from '../../src/audit/queue.js';

/** A write whose completion the test controls. */
function gate() {
  const writes: string[] = [];
  const pending: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const write = (batch: string) =>
    new Promise<void>((resolve, reject) => {
      writes.push(batch);
      pending.push({ resolve, reject });
    });
  return { writes, pending, write };
}

describe('LineQueue', () => {
  it('writes in order, batching the lines that arrived during a write', async () => {
    const g = gate();
    const q = new LineQueue({ write: g.write });
    const done: number[] = [];
    const ps = [1, 2, 3, 4].map((i) => q.push(`${i}\n`).then(() => done.push(i)));
    expect(g.writes).toEqual(['1\n']);
    g.pending[0]?.resolve();
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(g.writes).toEqual(['1\n', '2\n3\n4\n']);
    expect(done).toEqual([1]);
    g.pending[1]?.resolve();
    await Promise.all(ps);
    expect(done).toEqual([1, 2, 3, 4]);
  });

  it('a failed write rejects exactly the lines it carried', async () => {
    const g = gate();
    const q = new LineQueue({ write: g.write });
    const a = q.push('a\n');
    const b = q.push('b\n');
    g.pending[0]?.reject(new Error('disk full'));
    await expect(a).rejects.toThrow('disk full');
    await new Promise((r) => setTimeout(r, 0));
    g.pending[1]?.resolve();
    await expect(b).resolves.toBeUndefined();
  });

  it('a full buffer refuses a line at once; room comes back after the write', async () => {
    const g = gate();
    const q = new LineQueue({ write: g.write, maxEntries: 2 });
    const first = q.push('in flight\n'); // taken by the write at once
    const w1 = q.push('w1\n');
    const w2 = q.push('w2\n');
    expect(q.waiting).toBe(2);
    await expect(q.push('w3\n')).rejects.toThrow('audit buffer full');
    g.pending[0]?.resolve();
    await first;
    await new Promise((r) => setTimeout(r, 0));
    const w4 = q.push('w4\n');
    g.pending[1]?.resolve();
    await Promise.all([w1, w2]);
    await new Promise((r) => setTimeout(r, 0));
    g.pending[2]?.resolve();
    await w4;
    expect(g.writes).toEqual(['in flight\n', 'w1\nw2\n', 'w4\n']);
  });

  it('bounds the characters waiting too', async () => {
    const g = gate();
    const q = new LineQueue({ write: g.write, maxBytes: 10 });
    void q.push('x\n');
    void q.push('123456\n');
    await expect(q.push('123456\n')).rejects.toThrow('audit buffer full');
  });

  it('a write past timeoutMs fails its lines, calls onTimeout, and the next batch goes', async () => {
    const g = gate();
    let timeouts = 0;
    const q = new LineQueue({ write: g.write, timeoutMs: 30, onTimeout: () => timeouts++ });
    const stuck = q.push('stuck\n');
    const next = q.push('next\n');
    const t0 = Date.now();
    await expect(stuck).rejects.toThrow('timed out after 30 ms');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect(timeouts).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(g.writes).toEqual(['stuck\n', 'next\n']);
    g.pending[1]?.resolve();
    await expect(next).resolves.toBeUndefined();
  });

  it('one line per write for datagrams; close waits for the last write and refuses more', async () => {
    const g = gate();
    const q = new LineQueue({ write: g.write, oneLinePerWrite: true });
    const a = q.push('a\n');
    const b = q.push('b\n');
    const closed = q.close();
    await expect(q.push('c\n')).rejects.toThrow('closed');
    g.pending[0]?.resolve();
    await a;
    await new Promise((r) => setTimeout(r, 0));
    g.pending[1]?.resolve();
    await Promise.all([b, closed]);
    expect(g.writes).toEqual(['a\n', 'b\n']);
  });
});
