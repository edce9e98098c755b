/**
 * A real Vault client against `transitkit server --dev`: Debian's `python3-hvac`
 * (installed by .ci/run) creates keys, encrypts, decrypts, rewraps, hashes, HMACs and
 * verifies, signs and verifies signatures, exports a public key, rotates, lists
 * (hvac sends the LIST method), backs up and restores, creates a policy and a
 * token (and one with a chosen id), is refused by that policy (SHA-1 signing denied as the spec describes,
 * with hvac naming the algorithm in the body), and reads health and the leader
 * status (`sys.read_leader_status`).
 *
 * Fails loudly when no python3 with hvac is found: CI installs it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_HVAC_REASON, pythonWithHvac, SKIP_HVAC } from '../helpers/tools.js';
import { type CliServer, startDev } from './helpers.js';

/** A python3 that imports hvac (Debian's lives in /usr/bin, ahead of a pyenv shim). */
const SCRIPT = `
import base64, sys
import hvac
from hvac import exceptions

url, token = sys.argv[1], sys.argv[2]
b64 = lambda s: base64.b64encode(s.encode()).decode()
done = []

c = hvac.Client(url=url, token=token)
assert c.is_authenticated()
t = c.secrets.transit

t.create_key(name="py")
t.create_key(name="py-derived", derived=True)
key = t.read_key(name="py")["data"]
assert key["type"] == "aes256-gcm96" and key["latest_version"] == 1, key
done.append("create/read")

ct = t.encrypt_data(name="py", plaintext=b64("hello hvac"))["data"]["ciphertext"]
pt = t.decrypt_data(name="py", ciphertext=ct)["data"]["plaintext"]
assert base64.b64decode(pt) == b"hello hvac"
batch = t.encrypt_data(name="py", plaintext="", batch_input=[{"plaintext": b64("a")}, {"plaintext": b64("b")}])
assert len(batch["data"]["batch_results"]) == 2
dct = t.encrypt_data(name="py-derived", plaintext=b64("x"), context=b64("ctx"))["data"]["ciphertext"]
assert base64.b64decode(t.decrypt_data(name="py-derived", ciphertext=dct, context=b64("ctx"))["data"]["plaintext"]) == b"x"
done.append("encrypt/decrypt")

t.rotate_key(name="py")
assert t.read_key(name="py")["data"]["latest_version"] == 2
ct2 = t.rewrap_data(name="py", ciphertext=ct)["data"]["ciphertext"]
assert ct2.startswith("vault:v2:"), ct2
done.append("rotate/rewrap")

assert "py" in t.list_keys()["data"]["keys"]
done.append("list")

s = t.hash_data(hash_input=b64("abc"), algorithm="sha2-256")["data"]["sum"]
assert s == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", s
mac = t.generate_hmac(name="py", hash_input=b64("abc"), algorithm="sha2-256")["data"]["hmac"]
assert t.verify_signed_data(name="py", hash_input=b64("abc"), hmac=mac)["data"]["valid"] is True
assert t.verify_signed_data(name="py", hash_input=b64("abd"), hmac=mac)["data"]["valid"] is False
done.append("hash/hmac/verify")

t.create_key(name="py-ec", key_type="ecdsa-p256", exportable=True)
sig = t.sign_data(name="py-ec", hash_input=b64("doc"), hash_algorithm="sha2-256")["data"]["signature"]
assert sig.startswith("vault:v1:"), sig
assert t.verify_signed_data(name="py-ec", hash_input=b64("doc"), signature=sig, hash_algorithm="sha2-256")["data"]["valid"] is True
assert t.verify_signed_data(name="py-ec", hash_input=b64("dog"), signature=sig, hash_algorithm="sha2-256")["data"]["valid"] is False
exported = t.export_key(name="py-ec", key_type="signing-key")["data"]["keys"]["1"]
assert exported.startswith("-----BEGIN EC PRIVATE KEY-----"), exported[:30]
done.append("sign/verify/export")

dk = t.generate_data_key(name="py", key_type="plaintext")["data"]
assert len(base64.b64decode(dk["plaintext"])) == 32
rb = t.generate_random_bytes(n_bytes=24)["data"]["random_bytes"]
assert len(base64.b64decode(rb)) == 24
done.append("datakey/random")

t.update_key_configuration(name="py", deletion_allowed=True, exportable=True, allow_plaintext_backup=True)
backup = t.backup_key(name="py")["data"]["backup"]
t.restore_key(backup=backup, name="py-restored")
assert base64.b64decode(t.decrypt_data(name="py-restored", ciphertext=ct2)["data"]["plaintext"]) == b"hello hvac"
t.delete_key(name="py-restored")
try:
    t.read_key(name="py-restored")
    raise AssertionError("deleted key still readable")
except exceptions.InvalidPath:
    pass
done.append("backup/restore/delete")

c.sys.create_or_update_policy(name="app", policy="""
path "transit/encrypt/py" { capabilities = ["update"] }
path "transit/sign/*" { capabilities = ["update"] }
path "transit/sign/+/sha1" { capabilities = ["deny"] }
""")
assert "transit/encrypt/py" in c.sys.read_policy(name="app")["data"]["rules"]
assert "app" in c.sys.list_policies()["data"]["policies"]
tok = c.auth.token.create(policies=["app"], ttl="1h")["auth"]
assert tok["policies"] == ["app", "default"] and tok["lease_duration"] == 3600, tok
app = hvac.Client(url=url, token=tok["client_token"])
assert app.is_authenticated()
app.secrets.transit.encrypt_data(name="py", plaintext=b64("from app"))
try:
    app.secrets.transit.decrypt_data(name="py", ciphertext=ct2)
    raise AssertionError("policy did not deny decrypt")
except exceptions.Forbidden:
    pass
app.secrets.transit.sign_data(name="py-ec", hash_input=b64("ok"), hash_algorithm="sha2-256")
# hvac refuses sha1 itself, so send these through its adapter: path form and body form.
for url, body in (("/v1/transit/sign/py-ec/sha1", {"input": b64("old")}),
                  ("/v1/transit/sign/py-ec", {"input": b64("old"), "hash_algorithm": "sha1"})):
    try:
        app.adapter.post(url, json=body)
        raise AssertionError("sha1 signing not denied: " + url)
    except exceptions.Forbidden:
        pass
assert app.auth.token.lookup_self()["data"]["policies"] == ["app", "default"]
assert app.auth.token.renew_self(increment="2h")["auth"]["lease_duration"] == 7200
app.auth.token.revoke_self()
assert not app.is_authenticated()
# A chosen token id (root only), as "vault token create -id"; a second is refused.
chosen = c.auth.token.create(id="py-chosen-token", policies=["app"])["auth"]
assert chosen["client_token"] == "py-chosen-token", chosen
assert hvac.Client(url=sys.argv[1], token="py-chosen-token").is_authenticated()
try:
    c.auth.token.create(id="py-chosen-token", policies=["app"])
    raise AssertionError("duplicate token id accepted")
except exceptions.InvalidRequest as e:
    assert e.errors == ["cannot create a token with a duplicate ID"], e.errors
done.append("policy/token")

try:
    t.encrypt_data(name="py", plaintext="not base64!")
    raise AssertionError("bad base64 accepted")
except exceptions.InvalidRequest as e:
    assert e.errors, e
done.append("errors")

h = c.sys.read_health_status(method="GET")
assert h["initialized"] is True and h["sealed"] is False and h["standby"] is False, h
assert c.sys.read_health_status().status_code == 200
done.append("health")

# sys/leader: the dev node's memory storage can lock, so HA, and this node holds the lock.
l = c.sys.read_leader_status()
assert l["ha_enabled"] is True and l["is_self"] is True, l
assert l["active_time"] != "0001-01-01T00:00:00Z" and l["leader_address"] == "", l
assert l["performance_standby"] is False and l["performance_standby_last_remote_wal"] == 0, l
done.append("leader")

print("OK " + " ".join(done))
`;

if (SKIP_HVAC) it.skip(`hvac client [skipped: ${NO_HVAC_REASON}]`);

describe.skipIf(SKIP_HVAC)('hvac (python3-hvac) against transitkit server --dev', () => {
  let server: CliServer;
  let dir: string;
  beforeAll(async () => {
    server = await startDev();
    dir = mkdtempSync(join(tmpdir(), 'transitkit-hvac-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    expect(await server.stop()).toBe(0);
  });

  it('runs the whole client script', () => {
    const python = pythonWithHvac();
    const script = join(dir, 'hvac_roundtrip.py');
    writeFileSync(script, SCRIPT);
    let out: string;
    try {
      out = execFileSync(python, [script, server.url, server.root], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      throw new Error(
        `hvac script failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}\nserver: ${server.stderr()}`,
      );
    }
    expect(out.trim()).toBe(
      'OK create/read encrypt/decrypt rotate/rewrap list hash/hmac/verify sign/verify/export datakey/random backup/restore/delete policy/token errors health leader',
    );
    expect(server.stderr()).toBe('');
  });
});
