/**
 * TKS1 against an independent implementation: a from-scratch Cobblestone-256
 * in Python over pyca `cryptography` (AESGCM, HKDFExpand with SHA-512), in the
 * pyenv python3. The only thing transitkit provides to it is the data key,
 * obtained with plain transit decrypt of the wrapped key in the envelope, as
 * any Vault/OpenBao client would.
 * - transitkit encrypts (node and noble engines, plain and derived keys) →
 *   Python parses the envelope, checks the commitment, opens every chunk;
 * - Python encrypts under a `datakey` from transitkit → `decryptStream` and
 *   `openEncrypted` read it.
 * Sizes cross 256 chunks (the counter's first byte rolls over). Skipped with
 * the reason in the test name only outside CI when no python3 has `cryptography`.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { decryptAll, encryptAll, engineOn, pattern, sameBytes } from './support.js';

const PYTHON = ['/root/.pyenv/shims/python3', 'python3'].find(
  (py) =>
    spawnSync(
      py,
      ['-c', 'from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand; import cryptography'],
      { stdio: 'ignore' },
    ).status === 0,
);
const SKIP = PYTHON === undefined && !process.env.CI;
const REASON = 'no python3 with pyca cryptography: pip install cryptography';

/** The Python side: Cobblestone-256 and the TKS1 envelope, written from the specification. */
const SCRIPT = String.raw`
import hashlib, hmac, json, os, sys
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

CHUNK, TAG = 16384, 16
INFO = b"c2sp.org/chunked-encryption@v1+AEAD_AES_256_GCM\x00"

def derive(key, salt, context):
    okm = HKDFExpand(hashes.SHA512(), 32 + 12 + 32, INFO + salt + context).derive(key)
    return okm[:32], okm[32:44], okm[44:]

def nonce(base, i):
    return (int.from_bytes(base, "big") ^ i).to_bytes(12, "big")

r = json.load(sys.stdin)
key = bytes.fromhex(r["key"])
out = {}
if r["op"] == "decrypt":
    env = open(r["path"], "rb").read()
    assert env[:4] == b"TKS1", "magic"
    n = int.from_bytes(env[4:6], "big")
    prefix, body = env[:6 + n], env[6 + n:]
    out["wrapped"] = env[6:6 + n].decode("utf-8")
    salt, commitment = body[:24], body[24:56]
    k, base, expected = derive(key, salt, prefix)
    assert hmac.compare_digest(expected, commitment), "commitment"
    aead, h, off, i, size = AESGCM(k), hashlib.sha256(), 56, 0, 0
    while len(body) - off >= CHUNK + TAG:
        p = aead.decrypt(nonce(base, i), body[off:off + CHUNK + TAG], None)
        h.update(p); size += len(p); off += CHUNK + TAG; i += 1
    last = body[off:]
    assert TAG <= len(last) < CHUNK + TAG, "final chunk"
    p = aead.decrypt(nonce(base, i), last, None)
    h.update(p); size += len(p)
    out["sha256"], out["size"], out["chunks"] = h.hexdigest(), size, i + 1
elif r["op"] == "encrypt":
    wrapped = r["wrapped"].encode("utf-8")
    prefix = b"TKS1" + len(wrapped).to_bytes(2, "big") + wrapped
    salt = os.urandom(24)
    k, base, commitment = derive(key, salt, prefix)
    plain = bytes.fromhex(r["seed"]) * (r["size"] // 32) + bytes.fromhex(r["seed"])[: r["size"] % 32]
    aead, parts, i = AESGCM(k), [prefix, salt, commitment], 0
    while True:
        piece = plain[i * CHUNK:(i + 1) * CHUNK]
        parts.append(aead.encrypt(nonce(base, i), piece, None))
        i += 1
        if len(piece) < CHUNK:
            break
    open(r["path"], "wb").write(b"".join(parts))
    out["sha256"] = hashlib.sha256(plain).hexdigest()
print(json.dumps(out))
`;

function py(req: Record<string, unknown>): Record<string, string | number> {
  const r = spawnSync(PYTHON as string, ['-c', SCRIPT], {
    input: JSON.stringify(req),
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string | number>;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const dir = await mkdtemp(path.join(tmpdir(), 'tk-tks1-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.skipIf(SKIP)(
  `TKS1 against a from-scratch Cobblestone in Python${SKIP ? ` (skipped: ${REASON})` : ''}`,
  () => {
    for (const [name, backend] of BACKENDS) {
      const size = 256 * 16_384 + 16_385; // 258 chunks: the counter crosses a byte
      it(`${name}: Python opens transitkit's envelopes with the key from plain transit decrypt`, async () => {
        const transit = engineOn(backend);
        await transit.createKey('plain');
        await transit.createKey('derived', { derived: true });
        const context = Buffer.from('backups/2026-11-26').toString('base64');
        for (const [key, options] of [
          ['plain', undefined],
          ['derived', { context }],
        ] as const) {
          const plain = pattern(size, key.length);
          const env = await encryptAll(transit, key, plain, options);
          const file = path.join(dir, `${name}-${key}.tks1`);
          await writeFile(file, env);
          const len = ((env[4] ?? 0) << 8) | (env[5] ?? 0);
          const wrapped = new TextDecoder().decode(env.subarray(6, 6 + len));
          const dataKey = await transit.decrypt(key, { ciphertext: wrapped, ...options });
          const got = py({
            op: 'decrypt',
            path: file,
            key: Buffer.from(dataKey.plaintext, 'base64').toString('hex'),
          });
          expect(got).toEqual({ wrapped, sha256: sha256(plain), size, chunks: 258 });
        }
      });

      it(`${name}: transitkit opens Python's envelopes around a transit datakey`, async () => {
        const transit = engineOn(backend);
        await transit.createKey('k');
        const dk = await transit.generateDataKey('k', 'plaintext');
        const file = path.join(dir, `${name}-python.tks1`);
        const seed = createHash('sha256').update(name).digest('hex');
        const made = py({
          op: 'encrypt',
          path: file,
          key: Buffer.from(dk.plaintext ?? '', 'base64').toString('hex'),
          wrapped: dk.ciphertext,
          seed,
          size,
        });
        const env = new Uint8Array(await readFile(file));
        const out = await decryptAll(transit, 'k', env);
        expect(out.error).toBeUndefined();
        expect(sha256(out.bytes)).toBe(made.sha256);
        const obj = await transit.openEncrypted('k', new Blob([env]));
        expect(await obj.plaintextSize()).toBe(size);
        const tail = await obj.read(size - 20_000, 30_000);
        expect(sameBytes(tail, out.bytes.subarray(size - 20_000))).toBe(true);
      });
    }
  },
);
