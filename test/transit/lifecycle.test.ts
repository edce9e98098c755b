/**
 * Start-up (src/transit/lifecycle.ts): a call made while the engine is still
 * loading its settings waits for it; a start-up that failed fails every call,
 * then and later. The data calls run on the engine directly once it started,
 * so both paths are checked for each of them.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStorage, Transit, TransitNode } from '../../src/index.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { b64 } from './support.js';

/** A memory store whose reads of the engine's settings wait for `open()` once `shut()` (or fail). */
class GatedStorage extends MemoryStorage {
  #gate: Promise<void> | undefined;
  open = (): void => undefined;
  fail = false;

  constructor(closed = true) {
    super();
    if (closed) this.shut();
  }

  shut(): void {
    this.#gate = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  override async get(key: string): Promise<Uint8Array | undefined> {
    if (key === keyspace.keysConfig) {
      await this.#gate;
      if (this.fail) throw new Error('storage is down');
    }
    return super.get(key);
  }
}

/** Every data call that runs on the engine directly once started. */
async function dataCalls(t: Transit): Promise<unknown[]> {
  const { ciphertext } = await t.encrypt('k', { plaintext: b64('x') });
  const { hmac } = await t.hmac('k', { input: b64('x') });
  return [
    ciphertext,
    (await t.decrypt('k', { ciphertext })).plaintext,
    (await t.rewrap('k', { ciphertext })).ciphertext.startsWith('vault:v1:'),
    hmac,
    (await t.verify('k', { input: b64('x'), hmac })).valid,
  ];
}

describe('Transit start-up', () => {
  it('calls made before start-up finished wait for it, then run', async () => {
    const late = new GatedStorage(false);
    // The key exists before (no upsert can hide a call that ran before start-up).
    const seeder = new Transit({ storage: late, autoRotate: false });
    await seeder.createKey('k');
    await seeder.close();
    late.shut();
    const t = new Transit({ storage: late, autoRotate: false });
    let settled = false;
    const calls = Promise.all([
      t.encrypt('k', { plaintext: b64('x') }, { upsert: false }),
      t.hmac('k', { input: b64('x') }),
      t.decrypt('k', { ciphertext: 'vault:v1:AAAA' }).catch((e: Error) => e.message),
    ]).finally(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false); // still waiting for the settings
    late.open();
    const [enc, mac, bad] = await calls;
    expect(enc.ciphertext).toMatch(/^vault:v1:/);
    expect(mac.hmac).toMatch(/^vault:v1:/);
    expect(bad).toBe('invalid ciphertext length');
    // Started now: the same calls run directly and answer the same way.
    const out = await dataCalls(t);
    expect(out.slice(1)).toEqual([b64('x'), true, mac.hmac, true]);
    await t.close();
  });

  it('a failed start-up fails the calls that waited for it; the next call starts again', async () => {
    const storage = new GatedStorage();
    storage.fail = true;
    const t = new Transit({ storage, autoRotate: false });
    const early = t.encrypt('k', { plaintext: b64('x') });
    storage.open();
    await expect(early).rejects.toThrow('the transit engine failed to start: storage is down');
    await expect(t.hmac('k', { input: b64('x') })).rejects.toMatchObject({ code: 'internal' });
    // Storage answers again: the next call starts the engine and runs.
    storage.fail = false;
    const out = await dataCalls(t);
    expect(out.slice(1)).toEqual([b64('x'), true, expect.any(String), true]);
    await t.close();
  });
});

describe('Transit after close (a node seal closes its engine)', () => {
  const collect = async (s: ReadableStream<Uint8Array>) =>
    new Uint8Array(await new Response(s).arrayBuffer());

  it('refuses calls and streams made before, and a sealed node does the same', async () => {
    const t = new Transit({ autoRotate: false });
    await t.createKey('k');
    const envelope = await collect(
      new Blob([new Uint8Array(40_000)]).stream().pipeThrough(t.encryptStream('k')),
    );
    const before = t.decryptStream('k');
    await t.close();
    await expect(collect(new Blob([envelope]).stream().pipeThrough(before))).rejects.toMatchObject({
      code: 'sealed',
    });
    await expect(t.encrypt('k', { plaintext: b64('x') })).rejects.toMatchObject({ code: 'sealed' });
    await expect(t.readKey('k')).rejects.toMatchObject({ code: 'sealed' });

    const node = new TransitNode({ storage: new MemoryStorage(), leases: { tickMs: false } });
    const { keys } = await node.init({ secret_shares: 1, secret_threshold: 1 });
    await node.unseal({ key: keys[0] as string });
    await node.transit.createKey('k');
    const sealedEnvelope = await collect(
      new Blob([new Uint8Array(40_000)]).stream().pipeThrough(node.transit.encryptStream('k')),
    );
    const made = node.transit.decryptStream('k');
    await node.seal();
    await expect(
      collect(new Blob([sealedEnvelope]).stream().pipeThrough(made)),
    ).rejects.toMatchObject({ code: 'sealed' });
  });
});
