/**
 * The shared bad-input matrix (test/helpers/bad-inputs.ts) fed to every public
 * method of `LeaseManager`: each value is refused with a `TransitError`
 * `invalid_request`, never a TypeError, and storage is left unchanged.
 */
import { describe, expect, it } from 'vitest';
import { isTransitError } from '../../src/errors.js';
import type { LeaseManager } from '../../src/leases/lease-manager.js';
import {
  type BadInput,
  NOT_A_DURATION,
  NOT_AN_OBJECT,
  NOT_BOOLEAN,
  NOT_INTEGER,
  NOT_STRING,
} from '../helpers/bad-inputs.js';
import { setup } from './helpers.js';

/** NOT_A_DURATION holds values that are only wrong for auto_rotate_period (≥ 1 h). */
const NOT_DURATION = NOT_A_DURATION.filter((b) => !['"59m"', '3599', '1.5'].includes(b.label));

type Call = (leases: LeaseManager, value: unknown, id: string) => Promise<unknown> | unknown;

const CASES: Array<[string, readonly BadInput[], Call]> = [
  ['issue(request)', NOT_AN_OBJECT, (l, v) => l.issue(v as never)],
  ['issue path', NOT_STRING, (l, v) => l.issue({ path: v as string, renewable: true })],
  ['issue renewable', NOT_BOOLEAN, (l, v) => l.issue({ path: 'db', renewable: v as boolean })],
  ['issue ttl', NOT_DURATION, (l, v) => l.issue({ path: 'db', renewable: true, ttl: v as number })],
  [
    'issue max_ttl',
    NOT_DURATION,
    (l, v) => l.issue({ path: 'db', renewable: true, max_ttl: v as number }),
  ],
  [
    'issue token',
    NOT_STRING,
    (l, v) => l.issue({ path: 'db', renewable: true, token: v as string }),
  ],
  ['lookup lease_id', NOT_STRING, (l, v) => l.lookup(v as string)],
  ['renew lease_id', NOT_STRING, (l, v) => l.renew(v as string)],
  ['renew increment', NOT_DURATION, (l, v, id) => l.renew(id, v as number)],
  ['revoke lease_id', NOT_STRING, (l, v) => l.revoke(v as string)],
  ['revoke options', NOT_AN_OBJECT, (l, v, id) => l.revoke(id, v as never)],
  ['revoke sync', NOT_BOOLEAN, (l, v, id) => l.revoke(id, { sync: v as boolean })],
  ['list prefix', NOT_STRING, (l, v) => l.list(v as string)],
  ['revokePrefix prefix', NOT_STRING, (l, v) => l.revokePrefix(v as string)],
  ['revokePrefix sync', NOT_BOOLEAN, (l, v) => l.revokePrefix('db/', { sync: v as boolean })],
  ['revokeForce prefix', NOT_STRING, (l, v) => l.revokeForce(v as string)],
  ['count(request)', NOT_AN_OBJECT, (l, v) => l.count(v as never)],
  ['listIrrevocable limit', NOT_INTEGER, (l, v) => l.listIrrevocable({ limit: v as string })],
  ['registerRevoker prefix', NOT_STRING, (l, v) => l.registerRevoker(v as string, () => undefined)],
  [
    'registerRevoker fn',
    NOT_STRING.filter((b) => typeof b.value !== 'function'),
    (l, v) => l.registerRevoker('db/', v as never),
  ],
];

describe('bad input', () => {
  for (const [name, inputs, call] of CASES) {
    it(`${name}: invalid_request, storage unchanged`, async () => {
      const { leases, storage } = setup();
      const { lease_id } = await leases.issue({ path: 'db', ttl: 60, renewable: true });
      const before = await storage.list('');
      for (const { label, value } of inputs) {
        let err: unknown;
        try {
          await call(leases, value, lease_id);
        } catch (e) {
          err = e;
        }
        expect(isTransitError(err, 'invalid_request'), `${label}: ${String(err)}`).toBe(true);
      }
      expect(await storage.list('')).toEqual(before);
    });
  }
});
