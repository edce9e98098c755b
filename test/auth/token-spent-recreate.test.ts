/**
 * A limited-use token's last use marks its entry as being revoked (Vault's
 * pending revocation) instead of deleting it at once, so a create of the
 * same chosen id is refused as a duplicate until the revocation has removed
 * the spent token's links, and no token made with the id is revoked by it.
 */
import { expect, it } from 'vitest';
import { TokenStore } from '../../src/auth/token-store.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Gate, outcome } from '../helpers/gated-storage.js';

it('a token made with the id of a limited-use token on its last use is not revoked by it', async () => {
  const gate = new Gate(new MemoryStorage());
  const tokens = new TokenStore({ storage: gate });
  const root = await tokens.authenticate(await tokens.createRoot());
  if (!root) throw new Error('no root');
  const req = { id: 'uses-id-1', policies: ['default'], ttl: '1h', num_uses: 2 };
  await tokens.create(root, req, { sudo: true });
  const first = await tokens.authenticate('uses-id-1'); // one use left
  if (!first) throw new Error('no token');

  // The last use: its entry goes, its revocation's listing of children is held.
  gate.arm({ op: 'list', match: (k) => k === `auth/token/parent/${first.hash}/` });
  const last = tokens.authenticate('uses-id-1');
  await gate.held(1);

  // The same id made again meanwhile (an unlimited one).
  const again = await outcome(tokens.create(root, { ...req, num_uses: 0 }, { sudo: true }));
  gate.release();
  expect(await last).toBeDefined(); // the last use is served
  if (again.ok) {
    // Made: it is not the spent token, and lives on.
    const ctx = await tokens.authenticate('uses-id-1');
    expect(ctx?.accessor).toBe(again.v.accessor);
  } else {
    expect(again.message).toBe('cannot create a token with a duplicate ID');
  }
});
