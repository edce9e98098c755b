/**
 * Node level: a decrypt that began before a seal and meets a policy entry of
 * a keyring term the node has not loaded yet (another node rotated the
 * keyring) waits on the barrier's keyring reload; a seal and an unseal
 * meanwhile make it `sealed`, not plaintext from the closed engine nor a 400
 * blaming the unseal keys.
 */
import { expect, it } from 'vitest';
import { MemoryStorage, TransitNode } from '../../src/index.js';
import { Gate, outcome } from '../helpers/gated-storage.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

it('a decrypt held in a keyring reload across seal + unseal answers sealed', async () => {
  const inner = new MemoryStorage();
  const gate = new Gate(inner);
  // No watch: this node learns of the rotation only from the term of an entry.
  (gate as unknown as { watch?: unknown }).watch = undefined;
  const a = new TransitNode({ storage: gate, leases: { tickMs: false } });
  const init = await a.init({ secret_shares: 1, secret_threshold: 1 });
  const key = init.keys[0] as string;
  await a.unseal({ key });
  const b = new TransitNode({ storage: inner, leases: { tickMs: false } });
  await b.unseal({ key });
  await b.rotateKeyring(); // keyring term 2
  await b.transit.createKey('k2'); // its policy sealed under term 2
  const { ciphertext } = await b.transit.encrypt('k2', { plaintext: b64('top secret') });

  gate.arm({ op: 'get', match: (k) => k === 'core/keyring' }); // a's reload
  const order: string[] = [];
  const decrypt = outcome(a.transit.decrypt('k2', { ciphertext })).then((r) => {
    order.push('decrypt');
    return r;
  });
  await gate.held();
  await a.seal();
  order.push('seal');
  await a.unseal({ key });
  gate.release();
  const r = await decrypt;
  expect(order[0]).toBe('seal');
  expect(r).toMatchObject({ ok: false, code: 'sealed' });
});
