/**
 * The floor of a keyed call (issue 18's in-process rows): what any
 * promise-returning implementation of transit's contract does at the least —
 * strict base64 of its input, one lookup in a key cache with the age check
 * that keeps instances coherent, the primitive, and a reply object — and
 * nothing else: no key-name, request-shape, algorithm, batch, key-version,
 * policy-flag or backend-argument checks, no metrics hook.
 *
 * Its ratio to the raw call is the most a complete implementation could
 * reach on this machine; the distance from it to `transit` is what Vault's
 * per-call semantics cost. Bench code, not a second implementation: it
 * serves one key and one version.
 */
import { createDecipheriv, createHmac } from 'node:crypto';

const TAG = { authTagLength: 16 } as const;

/** Strict standard base64 as transitkit checks it on Node (length, alphabet, Latin-1). */
function strictBase64(s: string): Buffer | undefined {
  const n = s.length;
  if (n % 4 !== 0 || /[^\0-\xff]/.test(s) || s.indexOf('-') >= 0 || s.indexOf('_') >= 0) {
    return undefined;
  }
  const pad = s.charCodeAt(n - 1) !== 61 ? 0 : s.charCodeAt(n - 2) === 61 ? 2 : 1;
  const b = Buffer.from(s, 'base64');
  return b.length === (n / 4) * 3 - pad ? b : undefined;
}

/** A one-key cache whose entry is re-stamped after a second, as a re-check would. */
function cacheOf<T>(name: string, value: T): (name: string) => T {
  const entries = new Map([[name, { value, at: Date.now() }]]);
  return (key) => {
    const hit = entries.get(key);
    if (!hit) throw new Error(`no key ${key}`);
    const now = Date.now();
    if (now - hit.at >= 1000) hit.at = now;
    return hit.value;
  };
}

/** The floor of `transit.hmac(name, { input })` (sha2-256, version 1). */
export function hmacFloor(
  name: string,
  secret: Buffer,
): (req: { input: string }) => Promise<{ hmac: string; key_version: number }> {
  const key = cacheOf(name, secret);
  return async (req) => {
    const input = strictBase64(req.input);
    if (!input) throw new Error('bad input');
    const mac = createHmac('sha256', key(name)).update(input).digest('base64');
    return { hmac: `vault:v1:${mac}`, key_version: 1 };
  };
}

/** The floor of `transit.decrypt(name, { ciphertext })` (`vault:v1:`, 12-byte nonce, wiped output). */
export function decryptFloor(
  name: string,
  cipher: 'aes-256-gcm' | 'chacha20-poly1305',
  secret: Buffer,
): (req: { ciphertext: string }) => Promise<{ plaintext: string }> {
  const key = cacheOf(name, secret);
  return async (req) => {
    const ct = req.ciphertext;
    const sep = ct.indexOf(':', 7);
    if (!ct.startsWith('vault:v') || ct.slice(7, sep) !== '1') throw new Error('bad ciphertext');
    const p = strictBase64(ct.slice(sep + 1));
    if (!p || p.length < 28) throw new Error('bad ciphertext');
    // (Both names take the GCM overload's options: a 16-byte tag.)
    const d = createDecipheriv(cipher as 'aes-256-gcm', key(name), p.subarray(0, 12), TAG);
    d.setAuthTag(p.subarray(p.length - 16));
    const body = d.update(p.subarray(12, p.length - 16));
    d.final();
    try {
      return { plaintext: body.toString('base64') };
    } finally {
      body.fill(0);
    }
  };
}
