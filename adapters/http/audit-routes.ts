/**
 * Vault's audit device routes, all `sudo` (the root policy has it):
 *
 * - `GET /sys/audit`: the enabled devices by path (`file/`), in `data` and
 *   at the top level, as Vault (hvac's `sys.list_enabled_audit_devices`);
 * - `PUT|POST /sys/audit/:path`: enable (`type`, `description`, `options`,
 *   `local`); 204 (hvac's `sys.enable_audit_device`);
 * - `DELETE /sys/audit/:path`: disable; 204;
 * - `PUT|POST /sys/audit-hash/:path`: `input` hashed with that device's salt,
 *   `{"hash": "hmac-sha256:…"}` (hvac's `sys.calculate_hash`).
 *
 * Served when the handler has an audit broker (a `TransitNode`, or
 * `services.audit`); 404 otherwise, as an unknown path.
 *
 * Runtime-neutral.
 * @module
 */
import type { AuditEnableRequest } from 'transitkit';
import { defineSchema } from '../../src/schema.js';
import { del, get, post, type Route } from './route.js';

/** `POST /sys/audit/:path`. @internal */
export const AUDIT_ENABLE_FIELDS = defineSchema({
  type: { type: 'string', description: 'Device type: file or socket.' },
  description: { type: 'string', description: 'A description shown by the list.' },
  options: {
    type: 'map',
    description:
      'Device options (file_path, mode; address, socket_type, write_timeout: seconds or a Go duration such as 1.5s) and log_raw, hmac_accessor, elide_list_responses, format, prefix.',
  },
  local: { type: 'bool', description: 'Vault’s replication flag (kept and listed).' },
});

/** `POST /sys/audit-hash/:path`. @internal */
export const AUDIT_HASH_FIELDS = defineSchema({
  input: { type: 'string', description: 'The value to hash with the device’s salt.' },
});

const AUDIT = { needsAudit: true, needsAuth: true, sudo: true, greedy: 'path' } as const;

/** The audit rows. @internal */
export const AUDIT_ROUTES: readonly Route[] = [
  get('/sys/audit', { needsAudit: true, needsAuth: true, sudo: true, reply: 'legacy' }, (s) =>
    s.audit.list(),
  ),
  post('/sys/audit/:path', { ...AUDIT, fields: AUDIT_ENABLE_FIELDS, reply: 'none' }, (s, i) =>
    s.audit.enable(i.path.path, i.body as unknown as AuditEnableRequest),
  ),
  del('/sys/audit/:path', { ...AUDIT, reply: 'none' }, (s, i) => s.audit.disable(i.path.path)),
  post(
    '/sys/audit-hash/:path',
    { ...AUDIT, fields: AUDIT_HASH_FIELDS, reply: 'legacy' },
    async (s, { path, body }) => ({ hash: await s.audit.hash(path.path, body.input as string) }),
  ),
];
