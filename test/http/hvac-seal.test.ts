/**
 * hvac (Debian's `python3-hvac`, a real Vault client) drives the seal life
 * cycle of the real CLI server on file storage without a root key:
 * `sys.is_initialized`, `sys.initialize`, `sys.read_seal_status`,
 * `sys.read_leader_status` (HA: the file lock; 503 while sealed),
 * `sys.is_sealed`, `sys.submit_unseal_key` (progress and reset),
 * `sys.submit_unseal_keys`, transit use with the root token, `sys.seal`; then
 * the server restarts sealed and hvac unseals it again with the base64 shares,
 * and the data written before decrypts.
 *
 * Fails loudly when no python3 with hvac is found: CI installs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_HVAC_REASON, pythonWithHvac, SKIP_HVAC } from '../helpers/tools.js';
import { startCli } from './helpers.js';

const FIRST = `
import base64, json, sys
import hvac
url, out = sys.argv[1], sys.argv[2]
c = hvac.Client(url=url)
assert c.sys.is_initialized() is False
st = c.sys.read_seal_status()
assert st["initialized"] is False and st["sealed"] is True and st["type"] == "shamir", st
init = c.sys.initialize(secret_shares=3, secret_threshold=2)
assert len(init["keys"]) == 3 and len(init["keys_base64"]) == 3, init
assert c.sys.is_initialized() is True
assert c.sys.is_sealed() is True
st = c.sys.submit_unseal_key(init["keys"][0])
assert st["sealed"] is True and st["progress"] == 1 and st["t"] == 2 and st["n"] == 3, st
st = c.sys.submit_unseal_key(reset=True)
assert st["progress"] == 0, st
st = c.sys.submit_unseal_keys(init["keys"][1:3])
assert st["sealed"] is False, st
c.token = init["root_token"]
assert c.is_authenticated()
t = c.secrets.transit
t.create_key(name="sealed-py")
ct = t.encrypt_data(name="sealed-py", plaintext=base64.b64encode(b"kept").decode())["data"]["ciphertext"]
assert c.sys.read_health_status(method="GET")["sealed"] is False
l = c.sys.read_leader_status()
assert l["ha_enabled"] is True and l["is_self"] is True, l
r = c.sys.seal()
assert r.status_code == 204, r.status_code
assert c.sys.is_sealed() is True
try:
    t.encrypt_data(name="sealed-py", plaintext="")
    raise SystemExit("encrypt while sealed succeeded")
except hvac.exceptions.VaultDown:
    pass
try:
    c.sys.read_leader_status()
    raise SystemExit("leader status while sealed (HA) succeeded")
except hvac.exceptions.VaultDown:
    pass
json.dump({"keys_base64": init["keys_base64"], "root": init["root_token"], "ct": ct}, open(out, "w"))
print("first ok")
`;

const SECOND = `
import base64, json, sys
import hvac
url, saved = sys.argv[1], json.load(open(sys.argv[2]))
c = hvac.Client(url=url, token=saved["root"])
assert c.sys.is_initialized() is True
assert c.sys.is_sealed() is True
st = c.sys.submit_unseal_key(saved["keys_base64"][2])
assert st["progress"] == 1, st
st = c.sys.submit_unseal_key(saved["keys_base64"][0])
assert st["sealed"] is False, st
pt = c.secrets.transit.decrypt_data(name="sealed-py", ciphertext=saved["ct"])["data"]["plaintext"]
assert base64.b64decode(pt) == b"kept"
print("second ok")
`;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

if (SKIP_HVAC) it.skip(`hvac client [skipped: ${NO_HVAC_REASON}]`);

describe.skipIf(SKIP_HVAC)('hvac drives init, unseal, seal-status and seal', () => {
  it('against the CLI server on file storage, across a restart', async () => {
    const py = pythonWithHvac();
    const dir = mkdtempSync(join(tmpdir(), 'transitkit-hvac-seal-'));
    dirs.push(dir);
    const first = join(dir, 'first.py');
    const second = join(dir, 'second.py');
    const saved = join(dir, 'saved.json');
    writeFileSync(first, FIRST);
    writeFileSync(second, SECOND);
    const args = ['--storage', `file:${join(dir, 'store')}`, '--listen', '127.0.0.1:0'];
    const s1 = await startCli(args);
    try {
      expect(s1.stdout()).toContain('Seal: not initialized');
      const r = spawnSync(py, [first, s1.url, saved], { encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr + r.stdout).toContain('first ok');
    } finally {
      expect(await s1.stop()).toBe(0);
    }
    const s2 = await startCli(args);
    try {
      expect(s2.stdout()).toContain('Seal: sealed (PUT /v1/sys/unseal, 2 of 3)');
      const r = spawnSync(py, [second, s2.url, saved], { encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr + r.stdout).toContain('second ok');
    } finally {
      expect(await s2.stop()).toBe(0);
    }
  });
});
