/**
 * Unseal key shares: the root key split with Shamir's secret sharing over
 * GF(256) (the audited `shamir-secret-sharing` package; never hand-written),
 * and the parsing of a submitted share (hex or base64, as Vault accepts).
 *
 * Vault's rules for the parameters (`sys/init`): 1 ≤ threshold ≤ shares ≤ 255,
 * and a threshold of 1 only with a single share, in which case the share is
 * the root key itself (there is nothing to split).
 *
 * Runtime-neutral. The Shamir package is loaded on first use: an embedded
 * `Transit` never splits a root key, so it stays out of the edge bundle.
 * @module
 */
import { encodeBase64, encodeHex, tryDecodeBase64, tryDecodeHex } from '../encoding.js';
import { invalidRequest } from '../errors.js';
import { lazy } from '../util/lazy.js';
import { ROOT_KEY_BYTES } from './keyring.js';

const shamir = lazy(() => import('shamir-secret-sharing'));

/** The largest number of shares (GF(256) has 255 non-zero points). @internal */
export const MAX_SHARES = 255;

/**
 * Check `secret_shares` / `secret_threshold` as Vault's `sys/init` does.
 * @throws TransitError `invalid_request` with Vault's messages.
 * @internal
 */
export function checkShareParams(shares: unknown, threshold: unknown): void {
  if (!Number.isSafeInteger(shares) || (shares as number) < 1) {
    throw invalidRequest('secret_shares must be a positive integer');
  }
  if (!Number.isSafeInteger(threshold) || (threshold as number) < 1) {
    throw invalidRequest('secret_threshold must be a positive integer');
  }
  const n = shares as number;
  const t = threshold as number;
  if (n > MAX_SHARES) throw invalidRequest(`secret_shares may not exceed ${MAX_SHARES}`);
  if (t > n) throw invalidRequest('secret_threshold cannot be larger than secret_shares');
  if (n > 1 && t < 2)
    throw invalidRequest('secret_threshold must be at least 2 when secret_shares > 1');
}

/** Split the root key into `shares` shares, any `threshold` of which rebuild it. @internal */
export async function splitRootKey(
  rootKey: Uint8Array,
  shares: number,
  threshold: number,
): Promise<Uint8Array[]> {
  checkShareParams(shares, threshold);
  if (shares === 1) return [rootKey.slice()];
  return (await shamir()).split(rootKey, shares, threshold);
}

/**
 * The shares of `rootKey` as `sys/init` shows them once, in hex and base64;
 * the share bytes are wiped.
 * @internal
 */
export async function shareOut(
  rootKey: Uint8Array,
  shares: number,
  threshold: number,
): Promise<{ keys: string[]; keys_base64: string[] }> {
  const split = await splitRootKey(rootKey, shares, threshold);
  const out = { keys: split.map(encodeHex), keys_base64: split.map(encodeBase64) };
  for (const s of split) s.fill(0);
  return out;
}

/**
 * Rebuild the root key from `threshold` distinct shares; the shares are wiped.
 * @throws TransitError `invalid_request` when they do not combine.
 * @internal
 */
export async function combineShares(shares: readonly Uint8Array[]): Promise<Uint8Array> {
  try {
    if (shares.length === 1) return (shares[0] as Uint8Array).slice();
    return await (await shamir()).combine([...shares]);
  } catch {
    throw invalidRequest('the key shares do not rebuild the root key');
  } finally {
    for (const s of shares) s.fill(0);
  }
}

/** The byte length of one share for a given share count. @internal */
export const shareLength = (shares: number): number =>
  shares === 1 ? ROOT_KEY_BYTES : ROOT_KEY_BYTES + 1;

/**
 * Decode a submitted share: hex first (Vault's `keys`), then base64
 * (`keys_base64`); its length must match the configuration.
 * @throws TransitError `invalid_request` (the message never echoes the share).
 * @internal
 */
export function decodeShare(key: unknown, shares: number): Uint8Array {
  if (typeof key !== 'string' || key === '') throw invalidRequest('missing required parameter key');
  const want = shareLength(shares);
  const trimmed = key.trim();
  const hex = /^[0-9a-fA-F]+$/.test(trimmed) ? tryDecodeHex(trimmed) : undefined;
  const bytes = hex?.length === want ? hex : tryDecodeBase64(trimmed);
  if (!bytes || bytes.length !== want) {
    throw invalidRequest('the key share is not valid hex or base64 of the expected length');
  }
  return bytes;
}
