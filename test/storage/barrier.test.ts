/**
 * The barrier on its own, on every crypto backend: values at rest are
 * ciphertext, the storage path is bound as associated data (a copied entry
 * fails), tampering is detected, a wrong root key does not open the keyring,
 * keyring rotation keeps old entries readable (and another instance picks the
 * new term up), compare-and-set compares plaintexts and stays atomic when the
 * ciphertext changes underneath, sealed barriers refuse, `core/` is reserved,
 * and list/lock/watch pass through.
 */
import { describe, expect, it } from 'vitest';
import { TransitError } from '../../src/errors.js';
import {
  Keyring,
  openKeyring,
  readSealedKeyring,
  type SealedKeyring,
  sealKeyring,
} from '../../src/node/keyring.js';
import { Barrier } from '../../src/storage/barrier.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { BACKENDS } from '../helpers/backends.js';

const te = new TextEncoder();
const td = new TextDecoder();
const SEAL = { type: 'shamir', secret_shares: 1, secret_threshold: 1 } as const;

for (const [name, backend] of BACKENDS) {
  describe(`barrier (${name})`, () => {
    const setup = () => {
      const inner = new MemoryStorage();
      const keyring = Keyring.create(backend, 0);
      const barrier = new Barrier(inner, backend);
      barrier.unseal(keyring);
      return { inner, keyring, barrier };
    };

    it('stores ciphertext and reads back the value', async () => {
      const { inner, barrier } = setup();
      const value = te.encode('the secret value');
      await barrier.put('transit/policy/k', value);
      const raw = (await inner.get('transit/policy/k')) as Uint8Array;
      expect(raw.length).toBe(1 + 4 + 12 + value.length + 16);
      expect(td.decode(raw)).not.toContain('secret');
      expect(td.decode((await barrier.get('transit/policy/k')) as Uint8Array)).toBe(
        'the secret value',
      );
      // A fresh nonce per write: the same value twice gives two ciphertexts.
      await barrier.put('transit/policy/k', value);
      expect(await inner.get('transit/policy/k')).not.toEqual(raw);
      expect(await barrier.get('missing')).toBeUndefined();
      await barrier.delete('transit/policy/k');
      expect(await inner.get('transit/policy/k')).toBeUndefined();
    });

    it('binds the storage path: an entry copied to another path fails to decrypt', async () => {
      const { inner, barrier } = setup();
      await barrier.put('a/one', te.encode('one'));
      await inner.put('a/two', (await inner.get('a/one')) as Uint8Array);
      await expect(barrier.get('a/two')).rejects.toMatchObject({
        code: 'internal',
        message: expect.stringContaining('failed authentication'),
      });
      expect(td.decode((await barrier.get('a/one')) as Uint8Array)).toBe('one');
    });

    it('detects tampering with any byte, a truncated entry, and a foreign format', async () => {
      const { inner, barrier } = setup();
      await barrier.put('t', te.encode('tamper me'));
      const raw = (await inner.get('t')) as Uint8Array;
      for (const at of [5, 10, 17, raw.length - 1]) {
        const bad = raw.slice();
        bad[at] = (bad[at] as number) ^ 1;
        await inner.put('t', bad);
        await expect(barrier.get('t')).rejects.toMatchObject({ code: 'internal' });
      }
      const otherTerm = raw.slice();
      otherTerm[4] = 9;
      await inner.put('t', otherTerm);
      await expect(barrier.get('t')).rejects.toThrow(/unknown keyring term/);
      await inner.put('t', raw.subarray(0, 20));
      await expect(barrier.get('t')).rejects.toThrow(/not a barrier entry/);
      await inner.put('t', te.encode('{"plain":"json"}'.padEnd(40)));
      await expect(barrier.get('t')).rejects.toThrow(/not a barrier entry/);
    });

    it('another keyring (another root) cannot read the entries', async () => {
      const { inner, barrier } = setup();
      await barrier.put('x', te.encode('x'));
      const other = new Barrier(inner, backend);
      other.unseal(Keyring.create(backend, 0));
      await expect(other.get('x')).rejects.toMatchObject({ code: 'internal' });
    });

    it('a wrong root key does not open the sealed keyring; the seal config is authenticated', async () => {
      const inner = new MemoryStorage();
      const root = backend.randomBytes(32);
      const keyring = Keyring.create(backend, 0);
      await inner.put('core/keyring', sealKeyring(backend, root, SEAL, keyring));
      const doc = (await readSealedKeyring(inner)) as SealedKeyring;
      expect(openKeyring(backend, root, doc).key(1)).toEqual(keyring.key(1));
      expect(() => openKeyring(backend, backend.randomBytes(32), doc)).toThrow(
        /does not open the keyring/,
      );
      const edited = JSON.parse(td.decode(doc.raw));
      edited.seal.secret_threshold = 2;
      await inner.put('core/keyring', te.encode(JSON.stringify(edited)));
      const editedDoc = (await readSealedKeyring(inner)) as SealedKeyring;
      expect(() => openKeyring(backend, root, editedDoc)).toThrow(/does not open/);
    });

    it('keyring rotation: new writes use the new term, old entries stay readable, other instances reload', async () => {
      const { inner, keyring, barrier } = setup();
      await barrier.put('old', te.encode('v1'));
      const rotated = keyring.rotated(backend, 1);
      expect(rotated.activeTerm).toBe(2);
      expect(rotated.key(1)).toEqual(keyring.key(1));
      // A second instance still on term 1, which reloads on meeting term 2.
      const other = new Barrier(inner, backend);
      let reloads = 0;
      other.unseal(keyring, async () => {
        reloads++;
        return rotated;
      });
      barrier.unseal(rotated);
      await barrier.put('new', te.encode('v2'));
      expect((await inner.get('new'))?.[4]).toBe(2);
      expect((await inner.get('old'))?.[4]).toBe(1);
      expect(td.decode((await barrier.get('old')) as Uint8Array)).toBe('v1');
      const [a, b] = await Promise.all([other.get('new'), other.get('new')]);
      expect(td.decode(a as Uint8Array)).toBe('v2');
      expect(b).toEqual(a);
      expect(reloads).toBe(1);
      // Now on term 2 itself.
      await other.put('from-other', te.encode('v3'));
      expect((await inner.get('from-other'))?.[4]).toBe(2);
    });

    it('a slow reload that a newer unseal overtook does not put new writes back on its older term', async () => {
      const inner = new MemoryStorage();
      const ring = (terms: number[]) => {
        const keys = new Map(terms.map((t) => [t, new Uint8Array(32).fill(t)]));
        return { activeTerm: Math.max(...terms), key: (t: number) => keys.get(t) };
      };
      const writer = new Barrier(inner, backend);
      writer.unseal(ring([1, 2]));
      await writer.put('x', te.encode('by term 2'));
      const b = new Barrier(inner, backend);
      let finish: () => void = () => undefined;
      const gate = new Promise<void>((r) => {
        finish = r;
      });
      b.unseal(ring([1]), async () => {
        await gate;
        return ring([1, 2]);
      });
      const reading = b.get('x'); // term 2 is unknown: a reload starts
      await new Promise((r) => setTimeout(r, 10));
      b.unseal(ring([1, 2, 3]), async () => ring([1, 2, 3])); // the node learnt of term 3
      finish();
      expect(td.decode(await reading)).toBe('by term 2');
      await b.put('y', te.encode('new'));
      const raw = (await inner.get('y')) as Uint8Array;
      expect(new DataView(raw.buffer, raw.byteOffset).getUint32(1)).toBe(3);
    });

    it('compareAndSet compares plaintexts and swaps on the exact ciphertext it read', async () => {
      const { inner, keyring, barrier } = setup();
      expect(await barrier.compareAndSet('c', undefined, te.encode('1'))).toBe(true);
      expect(await barrier.compareAndSet('c', undefined, te.encode('x'))).toBe(false);
      expect(await barrier.compareAndSet('c', te.encode('2'), te.encode('x'))).toBe(false);
      expect(await barrier.compareAndSet('c', te.encode('1'), te.encode('2'))).toBe(true);
      expect(td.decode((await barrier.get('c')) as Uint8Array)).toBe('2');
      expect(await barrier.compareAndSet('c', te.encode('2'), undefined)).toBe(true);
      expect(await inner.get('c')).toBeUndefined();
      expect(await barrier.compareAndSet('c', te.encode('2'), te.encode('3'))).toBe(false);

      // Two instances race on one counter: every increment lands exactly once.
      const other = new Barrier(inner, backend);
      other.unseal(keyring);
      await barrier.put('n', te.encode('0'));
      const bump = async (b: Barrier) => {
        for (;;) {
          const cur = (await b.get('n')) as Uint8Array;
          const next = te.encode(String(Number(td.decode(cur)) + 1));
          if (await b.compareAndSet('n', cur, next)) return;
        }
      };
      await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? barrier : other)));
      expect(td.decode((await barrier.get('n')) as Uint8Array)).toBe('40');
    });

    it('compareAndSet retries when the same plaintext was re-encrypted underneath', async () => {
      const { inner, keyring, barrier } = setup();
      await barrier.put('r', te.encode('same'));
      let first = true;
      const racing = new Proxy(inner, {
        get(target, prop, recv) {
          if (prop === 'compareAndSet') {
            return async (k: string, e: Uint8Array | undefined, n: Uint8Array | undefined) => {
              if (first) {
                first = false;
                await barrier.put('r', te.encode('same')); // a rewrap: new ciphertext
              }
              return target.compareAndSet(k, e, n);
            };
          }
          const v = Reflect.get(target, prop, recv);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const b2 = new Barrier(racing, backend);
      b2.unseal(keyring);
      expect(await b2.compareAndSet('r', te.encode('same'), te.encode('next'))).toBe(true);
      expect(td.decode((await barrier.get('r')) as Uint8Array)).toBe('next');
    });

    it('refuses while sealed and reserves core/', async () => {
      const { inner, barrier } = setup();
      await expect(barrier.put('core/keyring', te.encode('x'))).rejects.toMatchObject({
        code: 'invalid_request',
      });
      await expect(barrier.get('core/keyring')).rejects.toThrow(/reserved/);
      barrier.seal();
      expect(barrier.sealed).toBe(true);
      for (const op of [
        () => barrier.get('a'),
        () => barrier.put('a', te.encode('a')),
        () => barrier.delete('a'),
        () => barrier.list(''),
        () => barrier.compareAndSet('a', undefined, te.encode('a')),
      ]) {
        const e = await op().catch((x: unknown) => x);
        expect(e).toBeInstanceOf(TransitError);
        expect(e).toMatchObject({ code: 'sealed', message: 'Vault is sealed' });
      }
      // Locks still pass through (leader election does not read values).
      const handle = await barrier.lock?.('l', 1000);
      expect(handle).toBeDefined();
      expect(await inner.lock('l', 1000)).toBeUndefined();
    });

    it('passes list and watch through (paths are not secret)', async () => {
      const { barrier } = setup();
      const seen: string[] = [];
      const off = await barrier.watch?.('p/', (k) => seen.push(k));
      await barrier.put('p/b', te.encode('b'));
      await barrier.put('p/a', te.encode('a'));
      expect(await barrier.list('p/')).toEqual(['a', 'b']);
      expect(await barrier.list('p/', { after: 'a' })).toEqual(['b']);
      await new Promise((r) => setTimeout(r, 10));
      expect(seen).toEqual(expect.arrayContaining(['p/a', 'p/b']));
      await off?.();
      expect(new Barrier({ ...minimalAdapter() }, backend).lock).toBeUndefined();
    });
  });
}

function minimalAdapter() {
  const m = new MemoryStorage();
  return {
    get: m.get.bind(m),
    put: m.put.bind(m),
    delete: m.delete.bind(m),
    list: m.list.bind(m),
    compareAndSet: m.compareAndSet.bind(m),
  };
}

describe('Barrier constructor', () => {
  it('refuses a missing or wrong storage or backend with invalid_request', () => {
    const backend = BACKENDS[0]?.[1];
    for (const [inner, crypto, message] of [
      [undefined, backend, "Barrier: 'inner' must be a StorageAdapter"],
      [{}, backend, "Barrier: 'inner' must be a StorageAdapter: it has no get"],
      [new MemoryStorage(), undefined, "Barrier: 'crypto' must be a crypto backend"],
      [new MemoryStorage(), {}, "Barrier: 'crypto' must be a crypto backend"],
    ] as const) {
      expect(() => new Barrier(inner as never, crypto as never)).toThrow(
        expect.objectContaining({ code: 'invalid_request', message }),
      );
    }
  });
});
