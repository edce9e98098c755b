/**
 * The RSA encodings of RFC 8017 that transit needs where neither node:crypto
 * nor WebCrypto can express an operation: EMSA-PSS (§9.1) over a precomputed
 * digest, EMSA-PKCS1-v1_5 (§9.2) over a digest or raw input (`hash_algorithm
 * =none`), and EME-OAEP (§7.1) for SHA-224, which WebCrypto lacks.
 *
 * Why this exists: node's `crypto.sign` and WebCrypto always hash the message
 * themselves, so Vault's `prehashed=true` cannot go through them. These are
 * encodings (MGF1 + a hash), not primitives: the RSA operation on the encoded
 * block is done by OpenSSL (`RSA_NO_PADDING`, blinded) on node and by the
 * blinded BigInt path of `./rsa-raw.ts` in the noble backend. Both backends
 * share this one module, so their outputs agree byte for byte, and the
 * Wycheproof suite runs every vector through it (digest mode).
 *
 * Verification is encode-and-compare / strict decode, as in Go. OAEP decoding
 * avoids data-dependent branches and reports one failure for every cause.
 *
 * Runtime-neutral: no `node:` import.
 *
 * @module
 */
import { constantTimeEqual } from '../util/constant-time.js';
import type { SignatureHash } from './asymmetric-backend.js';
import { HASH_SIZE, hashOf } from './asymmetric-checks.js';
import type { HashName } from './backend.js';
import { encodeDigestInfo } from './pki/digest-info.js';

/** MGF1 (RFC 8017 B.2.1): `Hash(seed ‖ BE32(0)) ‖ Hash(seed ‖ BE32(1)) ‖ …`, truncated. */
function mgf1(hash: HashName, seed: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const block = new Uint8Array(seed.length + 4);
  block.set(seed);
  const view = new DataView(block.buffer);
  for (let counter = 0, off = 0; off < length; counter++) {
    view.setUint32(seed.length, counter);
    const h = hashOf(hash, block);
    out.set(h.subarray(0, Math.min(h.length, length - off)), off);
    off += h.length;
  }
  return out;
}

/** `a ^= b` over `b.length` bytes. */
function xorInto(a: Uint8Array, b: Uint8Array): void {
  for (let i = 0; i < b.length; i++) a[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
}

/** `H(0x00 × 8 ‖ mHash ‖ salt)`, the PSS `H'`. */
function pssHash(hash: HashName, mHash: Uint8Array, salt: Uint8Array): Uint8Array {
  const m = new Uint8Array(8 + mHash.length + salt.length);
  m.set(mHash, 8);
  m.set(salt, 8 + mHash.length);
  return hashOf(hash, m);
}

/**
 * EMSA-PSS-ENCODE, returned left-padded to `k` bytes (ready for the RSA
 * operation). `emBits = modBits − 1`. The caller checked the salt range.
 * @internal
 */
export function emsaPssEncode(
  hash: HashName,
  mHash: Uint8Array,
  modBits: number,
  salt: Uint8Array,
): Uint8Array {
  const hLen = HASH_SIZE[hash];
  const emBits = modBits - 1;
  const emLen = Math.ceil(emBits / 8);
  const k = Math.ceil(modBits / 8);
  if (emLen < hLen + salt.length + 2) throw new RangeError('PSS salt too long for the key');
  const h = pssHash(hash, mHash, salt);
  const db = new Uint8Array(emLen - hLen - 1); // PS ‖ 0x01 ‖ salt
  db[db.length - salt.length - 1] = 0x01;
  db.set(salt, db.length - salt.length);
  xorInto(db, mgf1(hash, h, db.length));
  db[0] = (db[0] ?? 0) & (0xff >> (8 * emLen - emBits));
  const out = new Uint8Array(k);
  out.set(db, k - emLen);
  out.set(h, k - hLen - 1);
  out[k - 1] = 0xbc;
  return out;
}

/**
 * EMSA-PKCS1-v1_5 verification by encode-and-compare (RFC 8017 §8.2.2) over the
 * `k`-byte output of the public RSA operation; constant-time comparison. An
 * input too long for the key matches no signature (Go: `ErrVerification`).
 * @internal
 */
export function emsaPkcs1Verify(
  hash: SignatureHash,
  digest: Uint8Array,
  k: number,
  block: Uint8Array,
): boolean {
  let expected: Uint8Array;
  try {
    expected = emsaPkcs1Encode(hash, digest, k);
  } catch {
    return false;
  }
  return constantTimeEqual(block, expected);
}

/**
 * EMSA-PSS-VERIFY over the `k`-byte output of the public RSA operation; salt
 * length exact, or `'auto'` (recovered from the padding, as Go's
 * `PSSSaltLengthAuto` and OpenSSL's `RSA_PSS_SALTLEN_AUTO`).
 * @internal
 */
export function emsaPssVerify(
  hash: HashName,
  mHash: Uint8Array,
  modBits: number,
  block: Uint8Array,
  saltLength: number | 'auto',
): boolean {
  const hLen = HASH_SIZE[hash];
  const emBits = modBits - 1;
  const emLen = Math.ceil(emBits / 8);
  if (mHash.length !== hLen || block.length < emLen) return false;
  for (let i = 0; i < block.length - emLen; i++) if (block[i] !== 0) return false;
  const em = block.subarray(block.length - emLen);
  if (emLen < hLen + 2 || em[emLen - 1] !== 0xbc) return false;
  const topMask = (0xff << (8 - (8 * emLen - emBits))) & 0xff;
  if (((em[0] ?? 0) & topMask) !== 0) return false;
  const db = em.slice(0, emLen - hLen - 1);
  const h = em.subarray(emLen - hLen - 1, emLen - 1);
  xorInto(db, mgf1(hash, h, db.length));
  db[0] = (db[0] ?? 0) & (0xff >> (8 * emLen - emBits));
  let sep: number;
  if (saltLength === 'auto') {
    sep = db.findIndex((b) => b !== 0);
    if (sep < 0) return false;
  } else {
    if (emLen < hLen + saltLength + 2) return false;
    sep = db.length - saltLength - 1;
    for (let i = 0; i < sep; i++) if (db[i] !== 0) return false;
  }
  if (db[sep] !== 0x01) return false;
  const expected = pssHash(hash, mHash, db.subarray(sep + 1));
  return expected.every((b, i) => b === h[i]);
}

/**
 * EMSA-PKCS1-v1_5 block `00 01 FF…FF 00 ‖ T` of `k` bytes, where `T` is the
 * DigestInfo of `digest` or, for `'none'`, `digest` itself (Go's
 * `SignPKCS1v15` with hash 0).
 * @throws RangeError when `T` is longer than k − 11 (Go: "message too long").
 * @internal
 */
export function emsaPkcs1Encode(hash: SignatureHash, digest: Uint8Array, k: number): Uint8Array {
  const t = hash === 'none' ? digest : encodeDigestInfo(hash, digest);
  if (t.length + 11 > k) {
    throw new RangeError(
      `PKCS#1 v1.5 input too long: at most ${k - 11} bytes, got length=${t.length}`,
    );
  }
  const em = new Uint8Array(k).fill(0xff, 2, k - t.length - 1);
  em[1] = 0x01;
  em[k - t.length - 1] = 0x00;
  em.set(t, k - t.length);
  return em;
}

/**
 * EME-OAEP encoding with an empty label (RFC 8017 §7.1.1 step 2) into a
 * `k`-byte block; `seed` is hLen random bytes. The caller checked the length.
 * @internal
 */
export function emeOaepEncode(
  hash: HashName,
  message: Uint8Array,
  k: number,
  seed: Uint8Array,
): Uint8Array {
  const hLen = HASH_SIZE[hash];
  const db = new Uint8Array(k - hLen - 1); // lHash ‖ PS ‖ 0x01 ‖ M
  db.set(hashOf(hash, new Uint8Array(0)));
  db[db.length - message.length - 1] = 0x01;
  db.set(message, db.length - message.length);
  xorInto(db, mgf1(hash, seed, db.length));
  const maskedSeed = seed.slice();
  xorInto(maskedSeed, mgf1(hash, db, hLen));
  const em = new Uint8Array(k);
  em.set(maskedSeed, 1);
  em.set(db, 1 + hLen);
  return em;
}

/**
 * EME-OAEP decoding (RFC 8017 §7.1.2 step 3), empty label. Every check is
 * folded into one flag without early exit, following Go's `DecryptOAEP`, so
 * that the failures are not distinguishable by timing or by error.
 * @returns the message, or `undefined` for any decoding error.
 * @internal
 */
export function emeOaepDecode(hash: HashName, em: Uint8Array): Uint8Array | undefined {
  const hLen = HASH_SIZE[hash];
  const k = em.length;
  if (k < 2 * hLen + 2) return undefined;
  const seed = em.slice(1, 1 + hLen);
  const db = em.slice(1 + hLen);
  xorInto(seed, mgf1(hash, db, hLen));
  xorInto(db, mgf1(hash, seed, db.length));
  const lHash = hashOf(hash, new Uint8Array(0));
  let bad = em[0] ?? 0; // non-zero = invalid
  for (let i = 0; i < hLen; i++) bad |= (db[i] ?? 0) ^ (lHash[i] ?? 0);
  // Find the 0x01 after PS: `found` flips to 1 (as an all-ones mask) at the first 0x01;
  // any non-zero byte before it is invalid padding.
  let found = 0;
  let index = 0;
  let invalidPs = 0;
  for (let i = hLen; i < db.length; i++) {
    const b = db[i] ?? 0;
    const isOne = (((b ^ 1) - 1) >>> 31) & 1; // 1 iff b == 1
    const isZero = ((b - 1) >>> 31) & 1; // 1 iff b == 0
    const first = isOne & (found ^ 1);
    index = first * i + (1 - first) * index;
    invalidPs |= (found ^ 1) & (isOne ^ 1) & (isZero ^ 1);
    found |= isOne;
  }
  bad |= invalidPs | (found ^ 1);
  if (bad !== 0) return undefined;
  return db.slice(index + 1);
}
