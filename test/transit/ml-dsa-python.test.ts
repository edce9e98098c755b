/**
 * ML-DSA (#16) against an independent implementation: pyca `cryptography`
 * (≥ 47, on OpenSSL ≥ 3.5) in the pyenv python3. For each parameter set, on
 * the node and the noble engine:
 * - a signature made here verifies there (public key from our read body's
 *   SPKI PEM), and one made there verifies here;
 * - our `signing-key` export (PKCS#8, RFC 9881 seed form) loads there and is
 *   the same key (seed and public key);
 * - a key generated there (its PKCS#8) imports here through a BYOK blob, and
 *   signs for its own public key;
 * - a public key generated there imports here alone and verifies its
 *   signatures.
 * Skipped with the reason in the test name only outside CI when no python3
 * has `cryptography.hazmat.primitives.asymmetric.mldsa`.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type MobilityPair, mobilityPair, wrapForImport } from './import-support.js';

/** A python3 whose `cryptography` has ML-DSA. */
const PYTHON = ['/root/.pyenv/shims/python3', 'python3'].find(
  (py) =>
    spawnSync(py, ['-c', 'from cryptography.hazmat.primitives.asymmetric import mldsa'], {
      stdio: 'ignore',
    }).status === 0,
);
const SKIP = PYTHON === undefined && !process.env.CI;
const REASON = 'no python3 with cryptography >= 47 (ML-DSA): pip install cryptography';

/** The python side: one JSON request on stdin, one JSON answer on stdout (hex/PEM). */
const SCRIPT = `
import json, sys
from cryptography.hazmat.primitives import serialization as s
from cryptography.hazmat.primitives.asymmetric import mldsa
r = json.load(sys.stdin)
cls = {44: mldsa.MLDSA44PrivateKey, 65: mldsa.MLDSA65PrivateKey, 87: mldsa.MLDSA87PrivateKey}[r["level"]]
ctx = bytes.fromhex(r.get("ctx", ""))
msg = bytes.fromhex(r["msg"])
out = {}
def raw_pub(k):
    return k.public_bytes(s.Encoding.Raw, s.PublicFormat.Raw).hex()
if r["op"] == "verify":
    pub = s.load_pem_public_key(r["pem"].encode())
    try:
        pub.verify(bytes.fromhex(r["sig"]), msg, ctx) if ctx else pub.verify(bytes.fromhex(r["sig"]), msg)
        out["valid"] = True
    except Exception as e:
        out["valid"] = False
elif r["op"] == "load":
    k = s.load_pem_private_key(r["pem"].encode(), None)
    assert isinstance(k, cls), type(k)
    out["seed"] = k.private_bytes_raw().hex()
    out["pub"] = raw_pub(k.public_key())
    out["sig"] = (k.sign(msg, ctx) if ctx else k.sign(msg)).hex()
elif r["op"] == "generate":
    k = cls.generate()
    out["pkcs8"] = k.private_bytes(s.Encoding.DER, s.PrivateFormat.PKCS8, s.NoEncryption()).hex()
    out["spki"] = k.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo).decode()
    out["pub"] = raw_pub(k.public_key())
    out["sig"] = (k.sign(msg, ctx) if ctx else k.sign(msg)).hex()
print(json.dumps(out))
`;

function py(req: Record<string, unknown>): Record<string, string | boolean> {
  const r = spawnSync(PYTHON as string, ['-c', SCRIPT], {
    input: JSON.stringify(req),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`python failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string | boolean>;
}

const hex = (b: Uint8Array | Buffer): string => Buffer.from(b).toString('hex');
const sigBytes = (v: string): Buffer => Buffer.from(v.split(':')[2] ?? '', 'base64');
const MSG = Buffer.from('post-quantum signatures, cross-checked');
const LEVELS = [44, 65, 87] as const;

describe.skipIf(SKIP)(
  `ML-DSA against pyca cryptography${SKIP ? ` (skipped: ${REASON})` : ''}`,
  () => {
    let pair: MobilityPair;
    it('has a python with ML-DSA (CI must)', async () => {
      expect(PYTHON, REASON).toBeDefined();
      pair = await mobilityPair();
    });

    for (const level of LEVELS) {
      const type = `mldsa-${level}` as const;

      it(`${type}: our signatures verify there, our exported key is theirs, theirs verify here`, async () => {
        for (const [bname, t] of pair.engines) {
          const name = `py-${bname}-${type}`;
          await t.createKey(name, { type, exportable: true });
          const read = await t.readKey(name);
          const pem = (read.keys['1'] as { public_key: string }).public_key;
          expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
          const { signature } = await t.sign(name, { input: MSG.toString('base64') });
          expect(signature).toMatch(/^vault:v1:/);
          expect(
            py({ op: 'verify', level, pem, msg: hex(MSG), sig: hex(sigBytes(signature)) }).valid,
          ).toBe(true);
          // A flipped message does not verify there.
          const other = Buffer.from(MSG);
          other[0] = (other[0] ?? 0) ^ 1;
          expect(
            py({ op: 'verify', level, pem, msg: hex(other), sig: hex(sigBytes(signature)) }).valid,
          ).toBe(false);

          // With a FIPS 204 context string, both ways.
          const ctx = Buffer.from('transitkit-ctx');
          const withCtx = await t.sign(name, {
            input: MSG.toString('base64'),
            signature_context: ctx.toString('base64'),
          });
          const sig = hex(sigBytes(withCtx.signature));
          expect(py({ op: 'verify', level, pem, msg: hex(MSG), ctx: hex(ctx), sig }).valid).toBe(
            true,
          );
          expect(py({ op: 'verify', level, pem, msg: hex(MSG), sig }).valid).toBe(false);

          const exported = await t.exportKey('signing-key', name, 1, { format: 'pem' });
          const keyPem = exported.keys['1'] as string;
          expect(keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
          const raw = await t.exportKey('signing-key', name, 1, { format: 'raw' });
          const loaded = py({ op: 'load', level, pem: keyPem, msg: hex(MSG) });
          expect(loaded.seed).toBe(hex(Buffer.from(raw.keys['1'] as string, 'base64')));
          const pubRaw = await t.exportKey('public-key', name, 1, { format: 'raw' });
          expect(loaded.pub).toBe(hex(Buffer.from(pubRaw.keys['1'] as string, 'base64')));
          const theirs = `vault:v1:${Buffer.from(loaded.sig as string, 'hex').toString('base64')}`;
          expect(
            (await t.verify(name, { input: MSG.toString('base64'), signature: theirs })).valid,
          ).toBe(true);
          const theirCtx = py({ op: 'load', level, pem: keyPem, msg: hex(MSG), ctx: hex(ctx) });
          const theirsCtx = `vault:v1:${Buffer.from(theirCtx.sig as string, 'hex').toString('base64')}`;
          const checked = await t.verify(name, {
            input: MSG.toString('base64'),
            signature: theirsCtx,
            signature_context: ctx.toString('base64'),
          });
          expect(checked.valid).toBe(true);
        }
      });

      it(`${type}: a key generated there imports here (BYOK), a public key alone verifies`, async () => {
        for (const [bname, t] of pair.engines) {
          const gen = py({ op: 'generate', level, msg: hex(MSG) });
          const pkcs8 = Buffer.from(gen.pkcs8 as string, 'hex');
          const name = `py-import-${bname}-${type}`;
          await t.importKey(name, { type, ciphertext: wrapForImport(pair.wrap, pkcs8) });
          const pem = ((await t.readKey(name)).keys['1'] as { public_key: string }).public_key;
          expect(pem.trim()).toBe((gen.spki as string).trim());
          const { signature } = await t.sign(name, { input: MSG.toString('base64') });
          expect(
            py({ op: 'verify', level, pem, msg: hex(MSG), sig: hex(sigBytes(signature)) }).valid,
          ).toBe(true);
          const theirs = `vault:v1:${Buffer.from(gen.sig as string, 'hex').toString('base64')}`;
          expect(
            (await t.verify(name, { input: MSG.toString('base64'), signature: theirs })).valid,
          ).toBe(true);

          const pubName = `py-pub-${bname}-${type}`;
          await t.importKey(pubName, { type, public_key: gen.spki as string });
          expect(
            (await t.verify(pubName, { input: MSG.toString('base64'), signature: theirs })).valid,
          ).toBe(true);
          await expect(t.sign(pubName, { input: MSG.toString('base64') })).rejects.toThrow(
            /private/,
          );
        }
      });
    }
  },
);
