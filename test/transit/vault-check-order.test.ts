/**
 * Check order and texts of create and config against Vault's
 * handlers (builtin/logical/transit/path_keys.go pathPolicyWrite,
 * path_config.go pathKeysConfigWrite, sdk/helper/keysutil/lock_manager.go GetPolicy).
 */
import { describe, expect, it } from 'vitest';
import { expectError, makeEngine } from './support.js';

async function trimmed() {
  const eng = makeEngine();
  const { transit } = eng;
  await transit.createKey('k');
  for (let i = 0; i < 4; i++) await transit.rotateKey('k');
  await transit.updateKeyConfig('k', { min_decryption_version: 3, min_encryption_version: 3 });
  await transit.trimKey('k', { min_available_version: 3 });
  return eng;
}

describe('config: Vault order and texts', () => {
  it('min_decryption_version below min_available_version: Vault\'s text ("less then")', async () => {
    const { transit } = await trimmed();
    // path_config.go: "min decryption version should not be less then min available version"
    await expectError(
      transit.updateKeyConfig('k', { min_decryption_version: 1 }),
      'invalid_request',
      'min decryption version should not be less then min available version',
    );
  });

  it('the auto_rotate_period bound is checked before the min_available_version checks', async () => {
    const { transit } = await trimmed();
    // Vault returns from the auto_rotate_period check before its final min_available switch.
    await expectError(
      transit.updateKeyConfig('k', { min_decryption_version: 1, auto_rotate_period: '10m' }),
      'invalid_request',
      'auto rotate period must be 0 to disable or at least an hour',
    );
  });
});

describe('create: Vault order', () => {
  it('auto_rotate_period is checked before the type', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.createKey('a', { type: 'foo' as never, auto_rotate_period: '10m' }),
      'invalid_request',
      'auto rotate period must be 0 to disable or at least an hour',
    );
  });

  it('convergent without derived is checked before the type', async () => {
    const { transit } = makeEngine();
    await expectError(
      transit.createKey('a', { type: 'foo' as never, convergent_encryption: true }),
      'invalid_request',
      'convergent encryption requires derivation to be enabled',
    );
  });

  it('an existing key is returned (with the warning) even when the new key options would not fit its type', async () => {
    const { transit } = makeEngine();
    await transit.createKey('e', { type: 'ed25519' });
    // lock_manager.go GetPolicy checks derivation support only when it creates the policy.
    const info = await transit.createKey('e', { type: 'ecdsa-p256', derived: true });
    expect(info.type).toBe('ed25519');
  });
});
