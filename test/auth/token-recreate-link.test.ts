/**
 * A token re-made with the same chosen id under the same parent while the old
 * one is being revoked keeps its parent link: a create refuses an id whose
 * entry is being revoked, and a link names the token that wrote it (its
 * accessor), so the old revocation deletes only its own.
 */
import { expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Gate } from '../helpers/gated-storage.js';

it('a token re-made with the same id while the old one is being revoked stays in its parent tree', async () => {
  const gate = new Gate(new MemoryStorage());
  const tokens = new TokenStore({ storage: gate });
  const root = await tokens.authenticate(await tokens.createRoot());
  if (!root) throw new Error('no root');
  const p = (await tokens.create(root, { policies: ['root'], ttl: '2h' })).client_token;
  const pCtx = await tokens.authenticate(p);
  if (!pCtx) throw new Error('no parent');
  const req = { id: 'fixed-id-1', policies: ['default'], ttl: '1h' };
  const old = await tokens.create(pCtx, req, { sudo: true });

  // Revoke the old token: its entry goes, then its accessor delete is held
  // (its parent link is deleted right after).
  gate.arm({ op: 'delete', match: (k) => k === `auth/token/accessor/${old.accessor}` });
  const revoking = tokens.revoke('fixed-id-1');
  await gate.held(1);

  // The same id made again under the same parent meanwhile: allowed (the old
  // entry is gone).
  const again = await tokens.create(pCtx, req, { sudo: true });
  expect(again.client_token).toBe('fixed-id-1');
  gate.release();
  await revoking;
  expect((await tokens.authenticate('fixed-id-1'))?.accessor).toBe(again.accessor);

  // Revoking the parent revokes its child (Vault: the whole tree).
  await tokens.revoke(p);
  expect(await tokens.authenticate(p)).toBeUndefined();
  expect(await tokens.authenticate('fixed-id-1')).toBeUndefined();
});
