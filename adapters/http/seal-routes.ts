/**
 * The seal routes of a node ({@link SEAL_ROUTES}): a table of its own beside
 * routes.ts, served only when the handler is given a `TransitNode`.
 *
 * Runtime-neutral.
 * @module
 */
import { initNode } from './calls.js';
import { leaderStatus } from './leader.js';
import { get, post, type Route } from './route.js';
import { INIT_FIELDS, UNSEAL_FIELDS } from './sys-fields.js';

const SEALED = { needsNode: true, whileSealed: true, cap: null, reply: 'raw' } as const;
const SUDO_NODE = { needsNode: true, needsAuth: true, sudo: true, reply: 'none' } as const;

/**
 * The seal routes of a {@link TransitNode} (Vault's `sys/init`, `sys/unseal`,
 * `sys/seal`, `sys/seal-status`, `sys/leader`, `sys/rotate`, `sys/key-status`),
 * with Vault's request and response shapes, so hvac's `sys.initialize`,
 * `sys.is_initialized`, `sys.submit_unseal_key`, `sys.read_seal_status`,
 * `sys.read_leader_status` and `sys.seal` work unchanged.
 *
 * `init`, `unseal`, `seal-status` and `leader` take no token and answer while sealed,
 * with bare JSON bodies (no envelope), as Vault. `seal` and `rotate` need
 * `sudo` on their path (the root token has it). Served only when the handler
 * is given a node (else 404, as an unknown path).
 * @internal
 */
export const SEAL_ROUTES: readonly Route[] = [
  get('/sys/init', SEALED, (s) => s.node.initStatus()),
  post('/sys/init', { ...SEALED, fields: INIT_FIELDS }, (s, { body }) => initNode(s, body)),
  post('/sys/unseal', { ...SEALED, fields: UNSEAL_FIELDS }, (s, { body }) =>
    s.node.unseal({ key: body.key as string | undefined, reset: body.reset as boolean }),
  ),
  get('/sys/seal-status', SEALED, (s) => s.node.sealStatus()),
  // Vault's raw handler: no token, any query ignored, another method a bare 405 (leader.ts).
  get('/sys/leader', { ...SEALED, ignoreUnknown: true }, (s) => leaderStatus(s)),
  // Vault's raw seal handler: another method is a bare 405.
  post('/sys/seal', { ...SUDO_NODE, bareMethodError: true }, (s) => s.node.seal()),
  post('/sys/rotate', SUDO_NODE, (s) => s.node.rotateKeyring().then(() => undefined)),
  get('/sys/key-status', { needsNode: true, needsAuth: true, reply: 'legacy' }, (s) =>
    s.node.keyStatus(),
  ),
];
