/**
 * The ACL rule of acl-body-algorithm.test.ts, as a real Vault client
 * sees it: python3-hvac against `transitkit server --dev`, a policy that
 * grants exactly the paths hvac posts to (Vault's usual per-key policy), and
 * hvac's own `sign_data(..., hash_algorithm=...)`, `generate_hmac(...,
 * algorithm=...)` and `hash_data(..., algorithm=...)`. On Vault each call is
 * granted (the ACL sees `transit/sign/ec`, `transit/hmac/k`, `transit/hash`);
 * transitkit answered 403 (hvac raised `Forbidden`) before the body's
 * algorithm only narrowed the ACL path.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonWithHvac } from '../helpers/tools.js';
import { type CliServer, startDev } from './helpers.js';

const SCRIPT = `
import base64, sys
import hvac
from hvac import exceptions
url, root = sys.argv[1], sys.argv[2]
c = hvac.Client(url=url, token=root)
t = c.secrets.transit
t.create_key(name="ec", key_type="ecdsa-p256")
t.create_key(name="k")
c.sys.create_or_update_policy(name="exact", policy="""
path "transit/sign/ec" { capabilities = ["update"] }
path "transit/hmac/k" { capabilities = ["update"] }
path "transit/hash" { capabilities = ["update"] }
""")
app = hvac.Client(url=url, token=c.auth.token.create(policies=["exact"], ttl="1h")["auth"]["client_token"])
a = app.secrets.transit
b64 = base64.b64encode(b"doc").decode()
out = []
for label, call in (
    ("sign", lambda: a.sign_data(name="ec", hash_input=b64, hash_algorithm="sha2-256")),
    ("hmac", lambda: a.generate_hmac(name="k", hash_input=b64, algorithm="sha2-512")),
    ("hash", lambda: a.hash_data(hash_input=b64, algorithm="sha2-512")),
):
    try:
        call()
        out.append(label + ":ok")
    except exceptions.Forbidden:
        out.append(label + ":forbidden")
print(" ".join(out))
`;

describe('hvac with an exact-path Vault policy and the algorithm in the body', () => {
  let server: CliServer;
  let dir: string;
  beforeAll(async () => {
    server = await startDev();
    dir = mkdtempSync(join(tmpdir(), 'tk-hvac-acl-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  });

  it('sign_data / generate_hmac / hash_data are granted as on Vault', () => {
    const script = join(dir, 'acl.py');
    writeFileSync(script, SCRIPT);
    const out = execFileSync(pythonWithHvac(), [script, server.url, server.root], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(out.trim()).toBe('sign:ok hmac:ok hash:ok');
  });
});
