/**
 * Issuing, looking up and listing leases (reference §11): id format, path
 * rules, TTL defaults and caps, lookup's shape and errors, the directory
 * listing, and persistence before `issue` returns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import { LeaseManager } from '../../src/leases/lease-manager.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { HOUR, SECOND, setup } from './helpers.js';

const ID = /^(.+)\/([A-Za-z0-9]{24})$/;

async function rejects(p: Promise<unknown>, code: string, message: string | RegExp) {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isTransitError(err), String(err)).toBe(true);
  expect((err as { code: string }).code).toBe(code);
  if (typeof message === 'string') expect((err as Error).message).toBe(message);
  else expect((err as Error).message).toMatch(message);
}

describe('issue', () => {
  it('returns <path>/<24 base62> and stores the lease before returning', async () => {
    const { leases, storage } = setup();
    const g = await leases.issue({ path: 'db/creds/readonly', ttl: '1h', renewable: true });
    expect(g).toEqual({
      lease_id: expect.stringMatching(ID),
      renewable: true,
      lease_duration: 3600,
    });
    expect(ID.exec(g.lease_id)?.[1]).toBe('db/creds/readonly');
    expect(await storage.get(`sys/leases/entry/${g.lease_id}`)).toBeDefined();
    expect(await storage.list('sys/leases/expiry/')).toEqual([`1767229200000/${g.lease_id}`]);
  });

  it('ids are unique and well-formed for any valid path (property)', async () => {
    const { leases } = setup();
    const seen = new Set<string>();
    const segment = fc
      .stringMatching(/^[A-Za-z0-9_.@:+=,~-]{1,12}$/)
      .filter((s) => s !== '.' && s !== '..');
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), async (segs) => {
        const path = segs.join('/');
        const { lease_id } = await leases.issue({ path, ttl: 60, renewable: false });
        const m = ID.exec(lease_id);
        expect(m?.[1]).toBe(path);
        expect(seen.has(lease_id)).toBe(false);
        seen.add(lease_id);
        expect((await leases.lookup(lease_id)).path).toBe(path);
      }),
      { numRuns: 300 },
    );
  });

  it('uses the injected CSPRNG, without modulo bias (bytes >= 248 are skipped)', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const random = (n: number) => {
      calls++;
      return new Uint8Array(n).fill(calls === 1 ? 255 : 1); // first draw all rejected
    };
    const leases = new LeaseManager({ storage: new MemoryStorage({ clock }), clock, random });
    const { lease_id } = await leases.issue({ path: 'db', ttl: 1, renewable: false });
    expect(lease_id).toBe(`db/${'B'.repeat(24)}`);
  });

  it.each([
    ['', 'path must be specified'],
    ['/db', /empty segment/],
    ['db/', /empty segment/],
    ['db//x', /empty segment/],
    ['db/../x', /"\.\." segment/],
    ['db/./x', /"\." segment/],
    ['db/x y', /unsupported character/],
    ['db/é', /unsupported character/],
    ['x'.repeat(513), /longer than 512/],
  ])('refuses the path %j', async (path, message) => {
    const { leases, storage } = setup();
    await rejects(leases.issue({ path, ttl: 1, renewable: true }), 'invalid_request', message);
    expect(await storage.list('')).toEqual([]);
  });

  it('refuses bad fields', async () => {
    const { leases } = setup();
    const bad: unknown[] = [
      null,
      'db',
      { path: 5, renewable: true },
      { path: 'db' },
      { path: 'db', renewable: 'yes' },
      { path: 'db', renewable: true, ttl: -1 },
      { path: 'db', renewable: true, ttl: 'soon' },
      { path: 'db', renewable: true, max_ttl: {} },
      { path: 'db', renewable: true, token: '' },
      { path: 'db', renewable: true, auth: 1 },
      { path: 'db', renewable: true, data: () => 1 },
      { path: 'db', renewable: true, data: 10n },
    ];
    for (const req of bad) {
      await rejects(leases.issue(req as never), 'invalid_request', /./);
    }
  });

  it('ttl 0 is the default TTL; a TTL past the cap is capped with Vault’s warning', async () => {
    const { leases } = setup({ maxTtlSeconds: 7200, defaultTtlSeconds: 600 });
    expect((await leases.issue({ path: 'db', renewable: true })).lease_duration).toBe(600);
    expect((await leases.issue({ path: 'db', ttl: 0, renewable: true })).lease_duration).toBe(600);
    const capped = await leases.issue({ path: 'db', ttl: '3h', renewable: true });
    expect(capped.lease_duration).toBe(7200);
    expect(capped.warnings).toEqual([
      'TTL of "3h" exceeded the effective max_ttl of "2h"; TTL value is capped accordingly',
    ]);
    const own = await leases.issue({ path: 'db', ttl: 90, max_ttl: 60, renewable: true });
    expect(own.lease_duration).toBe(60);
    expect(own.warnings?.[0]).toContain('"1m30s" exceeded the effective max_ttl of "1m"');
  });

  it('defaults to Vault’s 32 days', async () => {
    const { leases } = setup();
    expect((await leases.issue({ path: 'db', renewable: true })).lease_duration).toBe(32 * 86_400);
  });

  it('refuses bad options', () => {
    const storage = new MemoryStorage();
    const bad: unknown[] = [
      undefined,
      {},
      { storage: {} },
      { storage, maxTtlSeconds: 0 },
      { storage, maxTtlSeconds: 1.5 },
      { storage, maxTtlSeconds: 100, defaultTtlSeconds: 200 },
      { storage, revokeTimeoutMs: -1 },
      { storage, maxRevokeAttempts: 0 },
      { storage, sliceSize: 0 },
      { storage, random: 1 },
      { storage, tokenExists: 'x' },
      { storage, clock: {} },
    ];
    for (const o of bad) {
      expect(() => new LeaseManager(o as never), JSON.stringify(o)).toThrow(
        expect.objectContaining({ code: 'invalid_request' }),
      );
    }
  });
});

describe('lookup', () => {
  it('returns Vault’s fields: RFC 3339 with fraction, null last_renewal, whole-second ttl', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'db/creds/ro', ttl: 3600, renewable: true });
    clock.advance(10 * SECOND + 400);
    expect(await leases.lookup(lease_id)).toEqual({
      id: lease_id,
      issue_time: '2026-01-01T00:00:00.000Z',
      expire_time: '2026-01-01T01:00:00.000Z',
      last_renewal: null,
      path: 'db/creds/ro',
      renewable: true,
      ttl: 3590,
    });
    clock.advance(600); // now 10.999 s rounds to 11 s
    expect((await leases.lookup(lease_id)).ttl).toBe(3589);
  });

  it('an expired lease not yet revoked: ttl 0, not renewable', async () => {
    const { leases, clock } = setup();
    const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
    clock.advance(2 * HOUR);
    expect(await leases.lookup(lease_id)).toMatchObject({ ttl: 0, renewable: false });
  });

  it('refuses a missing id and an unknown lease', async () => {
    const { leases } = setup();
    await rejects(leases.lookup(''), 'invalid_request', 'lease_id must be specified');
    await rejects(
      leases.lookup(undefined as never),
      'invalid_request',
      'lease_id must be specified',
    );
    await rejects(leases.lookup('db/nope'), 'invalid_request', 'invalid lease');
    await rejects(leases.lookup('db/a\u0000b'), 'invalid_request', 'invalid lease');
    await rejects(leases.lookup('db/\ud800'), 'invalid_request', 'invalid lease');
  });
});

describe('list', () => {
  it('lists id suffixes and sub-folders (ending with /) under a prefix', async () => {
    const { leases } = setup();
    const ids: string[] = [];
    for (const path of ['db/creds/ro', 'db/creds/ro', 'db/creds/rw', 'db', 'aws/creds/s3']) {
      ids.push((await leases.issue({ path, ttl: 60, renewable: false })).lease_id);
    }
    const suffix = (id: string) => id.slice(id.lastIndexOf('/') + 1);
    expect((await leases.list('')).keys).toEqual(['aws/', 'db/']);
    expect((await leases.list('db')).keys).toEqual(['creds/', suffix(ids[3] as string)].sort());
    expect((await leases.list('db/')).keys).toEqual((await leases.list('db')).keys);
    expect((await leases.list('db/creds/')).keys).toEqual(['ro/', 'rw/']);
    expect((await leases.list('db/creds/ro')).keys).toEqual(
      [suffix(ids[0] as string), suffix(ids[1] as string)].sort(),
    );
    expect((await leases.list('nothing')).keys).toEqual([]);
    await rejects(leases.list('db//x'), 'invalid_request', /empty segment/);
  });

  it('pages through large folders and jumps over sub-folders', async () => {
    const { leases } = setup();
    for (let i = 0; i < 1_500; i++)
      await leases.issue({ path: 'big/a', ttl: 60, renewable: false });
    for (let i = 0; i < 1_200; i++) await leases.issue({ path: 'big', ttl: 60, renewable: false });
    await leases.issue({ path: 'big/z', ttl: 60, renewable: false });
    const { keys } = await leases.list('big');
    expect(keys.filter((k) => k.endsWith('/'))).toEqual(['a/', 'z/']);
    expect(keys).toHaveLength(1_202);
    expect((await leases.list('big/a')).keys).toHaveLength(1_500);
  });
});
