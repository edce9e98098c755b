/**
 * Every {@link CryptoBackend} the crypto tests run on (noble `PLATFORMS`).
 * A crypto test loops `for (const [name, backend] of BACKENDS)`; adding a
 * backend here puts it through every vector and cross-check.
 */
import type { CryptoBackend } from '../../src/crypto/backend.js';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';

/** `[name, backend]` pairs: node:crypto first, then the pure-JS noble backend. */
export const BACKENDS: ReadonlyArray<readonly [string, CryptoBackend]> = [
  ['node', nodeBackend],
  ['noble', nobleBackend],
];
