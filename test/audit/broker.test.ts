/**
 * AuditBroker over real storage (memory, and a barrier over it): the table
 * (enable, list, disable, hash), entries in Vault's shape with every string
 * and token hashed, the common options, fail closed, the sink, and two
 * brokers on one watched store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuditBroker,
  type AuditBrokerOptions,
  type AuditEntry,
  type AuditFailureInfo,
  Barrier,
  isTransitError,
  MemoryStorage,
  nobleBackend,
} from '../../src/index.js';
import { Keyring } from '../../src/node/keyring.js';
import { eventually } from '../auth/flaky-storage.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { type Recorder, recorder, request } from './support.js';

const brokers: AuditBroker[] = [];
afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
});

async function open({ rec: given, ...o }: Partial<AuditBrokerOptions> & { rec?: Recorder } = {}) {
  const rec = given ?? recorder();
  const b = await AuditBroker.open({
    storage: o.storage ?? new MemoryStorage(),
    devices: { mem: rec.factory },
    logger: { error: () => undefined },
    ...o,
  });
  brokers.push(b);
  return { b, rec };
}

const RAW = ['c2VjcmV0IHBsYWludGV4dA==', 'hvs.secret-token', 'accessor-1', 'ctx'];

describe('the device table', () => {
  it('enables, lists (Vault shape, no salt), hashes and disables', async () => {
    const { b } = await open({ allowLogPrefixing: true });
    expect(b.active).toBe(false);
    await b.enable('mem1', {
      type: 'mem',
      description: 'first',
      options: { tag: 'x', prefix: 'P ' },
    });
    await b.enable('/deep/path/', { type: 'mem' });
    expect(b.active).toBe(true);
    expect(await b.list()).toEqual({
      'deep/path/': { type: 'mem', description: '', options: {}, local: false, path: 'deep/path/' },
      'mem1/': {
        type: 'mem',
        description: 'first',
        options: { tag: 'x', prefix: 'P ' },
        local: false,
        path: 'mem1/',
      },
    });
    const h = await b.hash('mem1', 'hello');
    expect(h).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(await b.hash('mem1/', 'hello')).toBe(h);
    expect(await b.hash('deep/path', 'hello')).not.toBe(h); // one salt per device
    await b.disable('mem1');
    await b.disable('deep/path');
    await b.disable('never-enabled');
    expect(await b.list()).toEqual({});
    expect(b.active).toBe(false);
  });

  it('refuses unknown types and options, bad values, a used path, a bad path', async () => {
    const { b } = await open();
    const refused = async (p: Promise<unknown>, text: string) => {
      const e = await p.then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(isTransitError(e, 'invalid_request'), String(e)).toBe(true);
      expect((e as Error).message).toContain(text);
    };
    await refused(b.enable('x', { type: 'syslog' }), 'unknown audit device type "syslog"');
    await refused(b.enable('x', { type: '' }), 'type is required');
    await refused(
      b.enable('x', { type: 'mem', options: { file_path: '/tmp/x' } }),
      'unknown option',
    );
    await refused(b.enable('x', { type: 'mem', options: { log_raw: 'maybe' } }), 'log_raw');
    await refused(b.enable('x', { type: 'mem', options: { format: 'jsonx' } }), 'format');
    await refused(b.enable('../x', { type: 'mem' }), 'invalid audit device path');
    await b.enable('x', { type: 'mem' });
    await refused(b.enable('x/', { type: 'mem' }), 'path already in use');
    await refused(b.hash('nope', 'v'), 'unknown audit device path');
    expect(Object.keys(await b.list())).toEqual(['x/']);
  });

  it('prefix only when allowed; a stored one goes unused where it is not', async () => {
    const storage = new MemoryStorage();
    const { b } = await open({ storage });
    await expect(b.enable('p', { type: 'mem', options: { prefix: 'P ' } })).rejects.toThrow(
      /allow_audit_log_prefixing/,
    );
    expect(await b.list()).toEqual({});
    // Enabled where allowed; another broker on the store, not allowing it, writes without it.
    const { b: allowing, rec: allowed } = await open({ storage, allowLogPrefixing: true });
    await allowing.enable('p', { type: 'mem', options: { prefix: 'P ' } });
    const rec = recorder();
    const { b: strict } = await open({ storage, rec });
    await strict.logRequest(request({ id: 'strict' }));
    await allowing.logRequest(request({ id: 'allowing' }));
    expect(rec.entries('p/').map((e) => e.request.id)).toEqual(['strict']);
    expect(allowed.entries('p/', 'P ').map((e) => e.request.id)).toEqual(['allowing']);
    await expect(open({ storage, allowLogPrefixing: 'yes' as never })).rejects.toThrow(
      /allowLogPrefixing/,
    );
  });

  it('a device whose output cannot be opened is not enabled', async () => {
    const { b, rec } = await open();
    rec.unopenable.add('bad/');
    const e = await b.enable('bad', { type: 'mem' }).catch((x: unknown) => x);
    expect((e as Error).message).toContain(
      'sanity check failed; unable to open audit device: cannot open bad/',
    );
    expect(await b.list()).toEqual({});
  });

  it('is stored in the barrier: the raw store holds neither salt, options nor path in the clear', async () => {
    const inner = new MemoryStorage();
    const barrier = new Barrier(inner, nobleBackend);
    barrier.unseal(Keyring.create(nobleBackend, 0));
    const { b } = await open({ storage: barrier });
    await b.enable('secret-device-name', { type: 'mem', options: { tag: 'visible-option' } });
    const keys = await inner.list('');
    const raw = await Promise.all(keys.map((k) => inner.get(k)));
    const text = raw.map((v) => Buffer.from(v as Uint8Array).toString('latin1')).join('\n');
    expect(keys).toContain('sys/audit/table');
    expect(text).not.toContain('secret-device-name');
    expect(text).not.toContain('visible-option');
    expect(text).not.toContain('"salt"');
    // A second broker on the same barrier finds the device and its salt.
    const { b: again } = await open({ storage: barrier });
    expect(await again.hash('secret-device-name', 'v')).toBe(
      await b.hash('secret-device-name', 'v'),
    );
  });
});

describe('entries', () => {
  it("are Vault's request and response shapes with every string and token hashed", async () => {
    const { b, rec } = await open();
    await b.enable('mem', { type: 'mem' });
    const req = request();
    await b.logRequest(req);
    await b.logResponse(req, {
      data: { ciphertext: 'vault:v1:abc', key_version: 2, nested: [{ s: 'x', n: 1, ok: true }] },
      time: req.time + 5,
    });
    const [q, r] = rec.entries('mem/') as [AuditEntry, AuditEntry];
    const H = (v: string) => b.hash('mem', v);
    expect(q).toEqual({
      type: 'request',
      time: '2026-01-02T03:04:05Z',
      auth: {
        client_token: await H('hvs.secret-token'),
        accessor: await H('accessor-1'),
        display_name: 'root',
        policies: ['root'],
        token_policies: ['root'],
        token_type: 'service',
        metadata: null,
        entity_id: '',
      },
      request: {
        id: 'req-1',
        operation: 'update',
        mount_point: 'transit/',
        mount_type: 'transit',
        client_token: await H('hvs.secret-token'),
        client_token_accessor: await H('accessor-1'),
        namespace: { id: 'root' },
        path: 'transit/encrypt/orders',
        data: {
          plaintext: await H('c2VjcmV0IHBsYWludGV4dA=='),
          key_version: 2,
          batch_input: [{ context: await H('ctx') }],
        },
        remote_address: '127.0.0.1',
        remote_port: 40000,
      },
    });
    expect(r.type).toBe('response');
    expect(r.time).toBe('2026-01-02T03:04:05.005Z');
    expect(r.request).toEqual(q.request);
    expect(r.response).toEqual({
      mount_point: 'transit/',
      mount_type: 'transit',
      data: {
        ciphertext: await H('vault:v1:abc'),
        key_version: 2,
        nested: [{ s: await H('x'), n: 1, ok: true }],
      },
    });
    expect(r.error).toBeUndefined();
    const all = rec.lines.get('mem/')?.join('') ?? '';
    for (const secret of [...RAW, 'vault:v1:abc']) expect(all).not.toContain(secret);
  });

  it('log_raw, hmac_accessor=false, elide_list_responses, prefix; an error; a token reply', async () => {
    const { b, rec } = await open({ allowLogPrefixing: true });
    await b.enable('raw', { type: 'mem', options: { log_raw: true } });
    await b.enable('acc', { type: 'mem', options: { hmac_accessor: 'false', prefix: '@cee: ' } });
    await b.enable('elide', { type: 'mem', options: { elide_list_responses: '1' } });
    const list = request({ operation: 'list', data: {} });
    await b.logResponse(list, { data: { keys: ['a', 'b', 'c'] }, time: 0 });
    const tok = request({ path: 'auth/token/create' });
    await b.logResponse(tok, {
      auth: { client_token: 'hvs.child', accessor: 'acc-child', policies: ['p'] },
      time: 0,
    });
    await b.logResponse(request(), { error: 'permission denied', time: 0 });

    const [rl, rt, re] = rec.entries('raw/') as [AuditEntry, AuditEntry, AuditEntry];
    expect(rl.response?.data).toEqual({ keys: ['a', 'b', 'c'] });
    expect(rt.auth.client_token).toBe('hvs.secret-token');
    expect(rt.response?.auth).toEqual({
      client_token: 'hvs.child',
      accessor: 'acc-child',
      policies: ['p'],
    });
    expect(re.error).toBe('permission denied');
    expect(re.request.data?.plaintext).toBe('c2VjcmV0IHBsYWludGV4dA==');

    const [al, at] = rec.entries('acc/', '@cee: ') as [AuditEntry, AuditEntry];
    expect(at.auth.accessor).toBe('accessor-1');
    expect(at.request.client_token_accessor).toBe('accessor-1');
    expect(at.auth.client_token).toBe(await b.hash('acc', 'hvs.secret-token'));
    expect(at.response?.auth).toEqual({
      client_token: await b.hash('acc', 'hvs.child'),
      accessor: 'acc-child',
      policies: ['p'],
    });
    expect(al.response?.data).toEqual({
      keys: [await b.hash('acc', 'a'), await b.hash('acc', 'b'), await b.hash('acc', 'c')],
    });
    const [el] = rec.entries('elide/') as [AuditEntry];
    expect(el.response?.data).toEqual({ keys: 3 });
  });
});

describe('fail closed', () => {
  it('refuses when no device records the entry, and counts each failure', async () => {
    const failures: AuditFailureInfo[] = [];
    const { b, rec } = await open({ onFailure: (f) => failures.push(f) });
    await b.enable('a', { type: 'mem' });
    await b.enable('b', { type: 'mem' });
    rec.failing.add('a/');
    await b.logRequest(request()); // b recorded it: enough
    expect(failures).toEqual([{ path: 'a/', entry: 'request', reason: 'device a/ is down' }]);
    rec.failing.add('b/');
    const e = await b.logRequest(request({ id: 'req-2' })).catch((x: unknown) => x);
    expect(isTransitError(e, 'internal')).toBe(true);
    expect((e as Error).message).toContain('no audit device recorded the request');
    const e2 = await b.logResponse(request(), { time: 0 }).catch((x: unknown) => x);
    expect(isTransitError(e2, 'internal')).toBe(true);
    expect(failures.map((f) => `${f.path} ${f.entry}`)).toEqual([
      'a/ request',
      'a/ request',
      'b/ request',
      'a/ response',
      'b/ response',
    ]);
  });

  it('a device that cannot open on this instance fails every entry there', async () => {
    const storage = new MemoryStorage();
    const recA = recorder();
    const recB = recorder();
    recB.unopenable.add('d/');
    const { b: a } = await open({ storage, rec: recA });
    const { b: other } = await open({ storage, rec: recB });
    await a.enable('d', { type: 'mem' });
    await eventually(async () => other.active, 'B learns of the device');
    const e = await other.logRequest(request()).catch((x: unknown) => x);
    expect(isTransitError(e, 'internal')).toBe(true);
    await a.logRequest(request());
    expect(recA.entries('d/')).toHaveLength(1);
  });

  it('a device that failed to open is opened again by reopen (SIGHUP), and by an entry every 5 s', async () => {
    const storage = new MemoryStorage();
    const clock = new FakeClock();
    const recA = recorder();
    const recB = recorder();
    recB.unopenable.add('d/');
    const { b: a } = await open({ storage, rec: recA });
    const { b: other } = await open({ storage, rec: recB, clock });
    await a.enable('d', { type: 'mem' });
    await eventually(async () => other.active, 'B learns of the device');
    expect(
      isTransitError(await other.logRequest(request()).catch((x: unknown) => x), 'internal'),
    ).toBe(true);
    recB.unopenable.delete('d/'); // the log directory is back
    // Within 5 s of the last try, entries still fail; after it, the next entry opens it.
    clock.advance(1_000);
    expect(
      isTransitError(await other.logRequest(request()).catch((x: unknown) => x), 'internal'),
    ).toBe(true);
    clock.advance(5_000);
    await other.logRequest(request({ id: 'after-5s' }));
    expect(recB.entries('d/')).toHaveLength(1);
    // reopen() (SIGHUP) does not wait: a third broker whose device failed opens it at once.
    const recC = recorder();
    recC.unopenable.add('d/');
    const { b: third } = await open({ storage, rec: recC, clock });
    expect(
      isTransitError(await third.logRequest(request()).catch((x: unknown) => x), 'internal'),
    ).toBe(true);
    recC.unopenable.delete('d/');
    await third.reopen();
    await third.logRequest(request({ id: 'after-sighup' }));
    expect(recC.entries('d/')).toHaveLength(1);
  });

  it('after close, an entry of a request that began while devices were enabled is refused', async () => {
    const { b } = await open();
    await b.enable('d', { type: 'mem' });
    const input = request();
    await b.logRequest(input);
    await b.close();
    const e = await b.logResponse(input, { time: 0 }).catch((x: unknown) => x);
    expect(isTransitError(e, 'internal')).toBe(true);
    expect((e as Error).message).toBe('audit broker closed');
    const { b: none } = await open();
    await none.close();
    await none.logResponse(input, { time: 0 }); // never had a device: nothing to refuse
  });

  it('without any device nothing is built and nothing is refused', async () => {
    const { b } = await open({ onFailure: () => expect.unreachable() });
    await b.logRequest(request());
    await b.logResponse(request(), { time: 0 });
  });
});

describe('the in-process sink', () => {
  it('receives every entry hashed with its own salt; a failing sink fails closed', async () => {
    const seen: AuditEntry[] = [];
    let fail = false;
    const { b } = await open({
      sink: (entry) => {
        if (fail) throw new Error('sink down');
        seen.push(entry);
      },
    });
    expect(b.active).toBe(true);
    await b.logRequest(request());
    expect(seen[0]?.request.data?.plaintext).toBe(b.hashForSink('c2VjcmV0IHBsYWludGV4dA=='));
    expect(seen[0]?.auth.client_token).toBe(b.hashForSink('hvs.secret-token'));
    expect(JSON.stringify(seen)).not.toContain('hvs.secret-token');
    fail = true;
    expect(isTransitError(await b.logRequest(request()).catch((x: unknown) => x), 'internal')).toBe(
      true,
    );
    // With a device beside it, the device's record is enough.
    await b.enable('mem', { type: 'mem' });
    await b.logRequest(request());
  });

  it('keeps its salt across brokers on one store', async () => {
    const storage = new MemoryStorage();
    const sink = () => undefined;
    const { b: one } = await open({ storage, sink });
    const { b: two } = await open({ storage, sink });
    expect(two.hashForSink('x')).toBe(one.hashForSink('x'));
  });
});

describe('two brokers on one watched store', () => {
  it('a device enabled on one logs on the other; disabling closes it there', async () => {
    const storage = new MemoryStorage();
    const recA = recorder();
    const recB = recorder();
    const { b: a } = await open({ storage, rec: recA });
    const { b: other } = await open({ storage, rec: recB });
    await a.enable('shared', { type: 'mem' });
    await eventually(async () => other.active, 'B opens the device');
    await other.logRequest(request({ id: 'via-b' }));
    expect(recB.entries('shared/').map((e) => e.request.id)).toEqual(['via-b']);
    expect(await other.hash('shared', 'v')).toBe(await a.hash('shared', 'v'));
    await a.disable('shared');
    await eventually(async () => !other.active, 'B closes the device');
    expect(recB.closed).toEqual(['shared/']);
  });
});
