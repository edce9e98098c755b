/**
 * The seal routes of a {@link TransitNode} (Vault's `sys/init`, `sys/unseal`,
 * `sys/seal`, `sys/seal-status`, `sys/rotate`, `sys/key-status`), with
 * Vault's request and response shapes, so hvac's `sys.initialize`,
 * `sys.is_initialized`, `sys.submit_unseal_key`, `sys.read_seal_status` and
 * `sys.seal` work unchanged.
 *
 * `init`, `unseal` and `seal-status` take no token and answer while sealed,
 * with bare JSON bodies (no envelope), as Vault. `seal` and `rotate` need
 * `sudo` on their path (the root token has it). Served only when the handler
 * is given a node (else 404, as an unknown path).
 *
 * Runtime-neutral.
 * @module
 */
import { invalidRequest } from '../../src/errors.js';
import { type Fields, get, post, type Route } from './route.js';

const SEALED = { needsNode: true, whileSealed: true, cap: null, reply: 'raw' } as const;
const INIT: Fields = {
  secret_shares: 'int',
  secret_threshold: 'int',
  pgp_keys: 'strings',
  root_token_pgp_key: 'string',
  stored_shares: 'int',
  recovery_shares: 'int',
  recovery_threshold: 'int',
  recovery_pgp_keys: 'strings',
};

/** Vault's init options this node does not offer: refused when set, not ignored. */
function refuseUnsupported(body: Readonly<Record<string, unknown>>): void {
  for (const f of ['pgp_keys', 'root_token_pgp_key', 'recovery_pgp_keys'] as const) {
    const v = body[f];
    if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) {
      throw invalidRequest(`${f} is not supported`);
    }
  }
}

/** The seal rows. @internal */
export const SEAL_ROUTES: readonly Route[] = [
  get('/sys/init', SEALED, (s) => s.node.initStatus()),
  post('/sys/init', { ...SEALED, fields: INIT }, (s, { body }) => {
    refuseUnsupported(body);
    return s.node.init({
      secret_shares: body.secret_shares as number,
      secret_threshold: body.secret_threshold as number,
    });
  }),
  post(
    '/sys/unseal',
    { ...SEALED, fields: { key: 'string', reset: 'bool', migrate: 'bool' } },
    (s, { body }) =>
      s.node.unseal({ key: body.key as string | undefined, reset: body.reset as boolean }),
  ),
  get('/sys/seal-status', SEALED, (s) => s.node.sealStatus()),
  post('/sys/seal', { needsNode: true, needsAuth: true, sudo: true, reply: 'none' }, (s) =>
    s.node.seal(),
  ),
  post('/sys/rotate', { needsNode: true, needsAuth: true, sudo: true, reply: 'none' }, (s) =>
    s.node.rotateKeyring().then(() => undefined),
  ),
  get('/sys/key-status', { needsNode: true, needsAuth: true, reply: 'legacy' }, (s) =>
    s.node.keyStatus(),
  ),
];
