/**
 * A token create cut by a seal (sys/seal while auth/token/create is between
 * its id entry and its accessor / parent-link writes): the create reports
 * `sealed`, but its id entry stays (the clean-up runs through the sealed
 * barrier too). After unseal the token whose create failed authenticates,
 * and revoking its parent does not revoke it (the parent link was never
 * written).
 */
import { expect, it } from 'vitest';
import { outcome } from '../helpers/gated-storage.js';
import { gatedShamirNode } from '../helpers/test-nodes.js';

it('a token create that failed with `sealed` leaves no token that outlives its parent', async () => {
  const { gate, node, key, rootToken } = await gatedShamirNode();
  const root = await node.tokens.authenticate(rootToken);
  if (!root) throw new Error('no root');
  // A parent with sudo on token create (so it may choose its child's id).
  await node.policies.write(
    'creator',
    'path "auth/token/create" { capabilities = ["create", "update", "sudo"] }',
  );
  const parent = (await node.tokens.create(root, { policies: ['creator'], ttl: '1h' }))
    .client_token;
  const pctx = await node.tokens.authenticate(parent);
  if (!pctx) throw new Error('no parent');

  // Hold the child's id entry write once it landed; seal meanwhile.
  gate.arm({ op: 'cas', match: (k) => k.startsWith('auth/token/id/'), after: true });
  const create = outcome(
    node.tokens.create(
      pctx,
      { id: 'child-token-1', policies: ['default'], ttl: '1h' },
      { sudo: true },
    ),
  );
  await gate.held();
  await node.seal();
  gate.release();
  const r = await create;
  expect(r.ok).toBe(false); // the caller was told the token was not made

  await node.unseal({ key });
  // Revoke the parent: its whole tree goes (Vault: children are revoked with it).
  await node.tokens.revoke(parent);
  expect(await node.tokens.authenticate(parent)).toBeUndefined();
  // The child whose create failed must not be usable, least of all after its parent's revocation.
  expect(await node.tokens.authenticate('child-token-1')).toBeUndefined();
});
