/**
 * The sys/auth half of the route walk in routes-walk.test.ts.
 */

import { expect } from 'vitest';
import type { Step } from './route-support.js';

/**
 * The walk's sys and auth steps: health, policies, tokens and leases.
 * `state` carries values between steps.
 */
export const sysSteps = (state: Record<string, string>): Step[] => [
  {
    method: 'GET',
    url: '/v1/sys/health',
    token: undefined,
    status: 200,
    check: (r) =>
      expect(r.json).toMatchObject({ initialized: true, sealed: false, standby: false }),
  },
  {
    method: 'GET',
    url: '/v1/sys/metrics',
    status: 200,
    check: (r) => {
      // Vault's JSON summary; the health request before is counted by route pattern.
      expect(Object.keys(r.json).sort()).toEqual([
        'Counters',
        'Gauges',
        'Points',
        'Samples',
        'Timestamp',
      ]);
      expect(r.json.Gauges).toContainEqual({
        Name: 'transitkit_node_sealed',
        Value: 0,
        Labels: {},
      });
      expect(
        r.json.Samples.some(
          (s: { Name: string; Labels: Record<string, string> }) =>
            s.Name === 'transitkit_http_request_duration_seconds' &&
            s.Labels.route === '/sys/health',
        ),
      ).toBe(true);
    },
  },
  {
    method: 'PUT',
    url: '/v1/sys/policy/walker',
    body: { policy: 'path "transit/*" { capabilities = ["read"] }' },
    status: 204,
  },
  {
    method: 'GET',
    url: '/v1/sys/policy/walker',
    status: 200,
    check: (r) => {
      expect(r.json.data.rules).toContain('transit/*');
      expect(r.json.rules).toBe(r.json.data.rules);
    },
  },
  {
    method: 'GET',
    url: '/v1/sys/policy',
    status: 200,
    check: (r) => expect(r.json.data.policies).toEqual(['default', 'root', 'walker']),
  },
  {
    method: 'LIST',
    url: '/v1/sys/policy',
    status: 200,
    check: (r) => expect(r.json.data.keys).toContain('walker'),
  },
  {
    method: 'POST',
    url: '/v1/sys/policies/acl/walker2',
    body: { policy: '{"path": {"transit/keys/*": {"capabilities": ["read"]}}}' },
    status: 204,
  },
  {
    method: 'GET',
    url: '/v1/sys/policies/acl/walker2',
    status: 200,
    check: (r) =>
      expect(r.json.data).toMatchObject({
        name: 'walker2',
        policy: expect.stringContaining('transit/keys/*'),
      }),
  },
  {
    method: 'LIST',
    url: '/v1/sys/policies/acl',
    status: 200,
    check: (r) => expect(r.json.data.keys).toEqual(['default', 'root', 'walker', 'walker2']),
  },
  { method: 'DELETE', url: '/v1/sys/policies/acl/walker2', status: 204 },
  { method: 'DELETE', url: '/v1/sys/policy/walker', status: 204 },
  {
    method: 'POST',
    url: '/v1/auth/token/create',
    body: { policies: ['default'], ttl: '1h' },
    status: 200,
    check: (r) => {
      state.child = r.json.auth.client_token;
      state.childAccessor = r.json.auth.accessor;
      expect(r.json.auth.lease_duration).toBe(3600);
    },
  },
  {
    method: 'POST',
    url: '/v1/auth/token/lookup',
    body: () => ({ token: state.child }),
    status: 200,
    check: (r) => expect(r.json.data.accessor).toBe(state.childAccessor),
  },
  {
    method: 'GET',
    url: () => `/v1/auth/token/lookup?token=${encodeURIComponent(state.child ?? '')}`,
    status: 200,
    check: (r) => expect(r.json.data.accessor).toBe(state.childAccessor),
  },
  {
    method: 'POST',
    url: '/v1/auth/token/lookup-self',
    body: {},
    status: 200,
    check: (r) => expect(r.json.data.policies).toEqual(['root']),
  },
  {
    method: 'POST',
    url: '/v1/auth/token/lookup-accessor',
    body: () => ({ accessor: state.childAccessor }),
    status: 200,
    check: (r) => expect(r.json.data).toMatchObject({ id: '', policies: ['default'] }),
  },
  {
    method: 'POST',
    url: '/v1/auth/token/renew',
    body: () => ({ token: state.child, increment: '30m' }),
    status: 200,
    check: (r) => expect(r.json.auth.lease_duration).toBe(1800),
  },
  {
    method: 'POST',
    url: '/v1/auth/token/renew-accessor',
    body: () => ({ accessor: state.childAccessor, increment: '40m' }),
    status: 200,
    check: (r) => expect(r.json.auth).toMatchObject({ client_token: '', lease_duration: 2400 }),
  },
  {
    method: 'POST',
    url: '/v1/auth/token/create-orphan',
    body: { ttl: '1h' },
    status: 200,
    check: (r) => {
      expect(r.json.auth.orphan).toBe(true);
      state.orphan = r.json.auth.client_token;
    },
  },
  {
    method: 'POST',
    url: '/v1/auth/token/create',
    body: { ttl: '1h' },
    status: 200,
    check: (r) => {
      state.victimAccessor = r.json.auth.accessor;
    },
  },
  {
    method: 'POST',
    url: '/v1/auth/token/revoke-accessor',
    body: () => ({ accessor: state.victimAccessor }),
    status: 204,
  },
  {
    method: 'POST',
    url: '/v1/auth/token/revoke-orphan',
    body: () => ({ token: state.orphan }),
    status: 204,
  },
  {
    method: 'GET',
    url: '/v1/auth/token/lookup-self',
    token: 'child',
    status: 200,
    check: (r) => expect(r.json.data.policies).toEqual(['default']),
  },
  {
    method: 'POST',
    url: '/v1/auth/token/renew-self',
    token: 'child',
    body: { increment: '2h' },
    status: 200,
    check: (r) => expect(r.json.auth.lease_duration).toBe(7200),
  },
  { method: 'POST', url: '/v1/auth/token/revoke-self', token: 'child', status: 204 },
  {
    method: 'POST',
    url: '/v1/auth/token/create',
    body: { ttl: 60 },
    status: 200,
    check: (r) => {
      state.other = r.json.auth.client_token;
    },
  },
  {
    method: 'POST',
    url: '/v1/auth/token/revoke',
    body: () => ({ token: state.other }),
    status: 204,
  },
  // Token leases: the two tokens above took theirs with them; two new ones get leases.
  {
    method: 'POST',
    url: '/v1/auth/token/create',
    body: { ttl: '1h' },
    status: 200,
    check: (r) => {
      state.t3 = r.json.auth.client_token;
    },
  },
  {
    method: 'POST',
    url: '/v1/auth/token/create',
    body: { ttl: '1h' },
    status: 200,
    check: (r) => {
      state.t4 = r.json.auth.client_token;
    },
  },
  {
    method: 'LIST',
    url: '/v1/sys/leases/lookup/',
    status: 200,
    check: (r) => expect(r.json.data.keys).toContain('auth/'),
  },
  {
    method: 'LIST',
    url: '/v1/sys/leases/lookup/auth/token/create',
    status: 200,
    check: (r) => {
      expect(r.json.data.keys).toHaveLength(2);
      state.lease1 = `auth/token/create/${r.json.data.keys[0]}`;
      state.lease2 = `auth/token/create/${r.json.data.keys[1]}`;
    },
  },
  {
    method: 'POST',
    url: '/v1/sys/leases/lookup',
    body: () => ({ lease_id: state.lease1 }),
    status: 200,
    check: (r) => expect(r.json.data).toMatchObject({ id: state.lease1, renewable: true }),
  },
  {
    method: 'POST',
    url: '/v1/sys/leases/renew',
    body: () => ({ lease_id: state.lease1 }),
    status: 400,
    check: (r) => expect(r.json.errors).toEqual(['tokens cannot be renewed through this endpoint']),
  },
  {
    method: 'PUT',
    url: () => `/v1/sys/leases/renew/${state.lease1}`,
    body: { increment: 60 },
    status: 400,
  },
  {
    method: 'GET',
    url: '/v1/sys/leases/count?type=irrevocable',
    status: 200,
    check: (r) => expect(r.json.data.lease_count).toBe(0),
  },
  {
    method: 'GET',
    url: '/v1/sys/leases?type=irrevocable',
    status: 200,
    check: (r) => expect(r.json.data.leases).toEqual([]),
  },
  {
    method: 'POST',
    url: '/v1/sys/leases/tidy',
    status: 202,
    check: (r) => expect(r.json.warnings[0]).toMatch(/^Tidy operation successfully started/),
  },
  { method: 'POST', url: () => `/v1/sys/leases/revoke/${state.lease1}`, status: 204 },
  {
    method: 'POST',
    url: '/v1/sys/leases/revoke',
    body: () => ({ lease_id: state.lease2, sync: false }),
    status: 202,
  },
  {
    method: 'POST',
    url: '/v1/auth/token/create',
    body: { ttl: '1h' },
    status: 200,
    check: (r) => {
      state.t5 = r.json.auth.client_token;
    },
  },
  {
    method: 'POST',
    url: '/v1/sys/leases/revoke-prefix/auth/token/create',
    body: { sync: true },
    status: 204,
  },
  { method: 'POST', url: '/v1/sys/leases/revoke-force/auth/token/create', status: 204 },
];
