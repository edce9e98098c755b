/**
 * Vault's transit API inside an existing node:http app: the app keeps its own
 * routes and hands `/v1/*` to transitkit, with `next` for anything transitkit
 * does not serve (the same `(req, res, next)` shape Express mounts with
 * `app.use(handler.node)`). Then a client round trip: an application token
 * limited by an ACL policy encrypts and decrypts; a denied path gets 403.
 *
 * Run: `npx tsx examples/node-http.ts` (CI runs every example).
 */
import { createServer } from 'node:http';
import { MemoryStorage, Transit } from 'transitkit';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';

const storage = new MemoryStorage();
const tokens = new TokenStore({ storage });
const policies = new AclPolicyStore({ storage });
const root = await tokens.createRoot();
const vault = createHandler({ transit: new Transit({ storage }), tokens, policies });

// The existing app: its own routes, and transitkit under /v1.
const app = createServer((req, res) => {
  const notFound = () => {
    res.statusCode = 404;
    res.end('not found\n');
  };
  if (req.url === '/') {
    res.end('my app\n');
    return;
  }
  if (req.url?.startsWith('/v1/')) {
    vault.node(req, res, notFound);
    return;
  }
  notFound();
});
await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
const address = app.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

async function vaultCall(token: string, method: string, path: string, body?: unknown) {
  const r = await fetch(base + path, {
    method,
    headers: { 'X-Vault-Token': token },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: r.status === 204 ? undefined : await r.json() };
}

// The operator: a key, a policy, and a token for the application.
await vaultCall(root, 'POST', '/v1/transit/keys/orders', { type: 'aes256-gcm96' });
await vaultCall(root, 'PUT', '/v1/sys/policy/orders-app', {
  policy: `
    path "transit/encrypt/orders" { capabilities = ["update"] }
    path "transit/decrypt/orders" { capabilities = ["update"] }
  `,
});
const created = await vaultCall(root, 'POST', '/v1/auth/token/create', {
  policies: ['orders-app'],
  ttl: '1h',
});
const appToken: string = created.json.auth.client_token;
console.log('app token policies', created.json.auth.policies);

// The application.
const plaintext = Buffer.from('card 4111-1111').toString('base64');
const enc = await vaultCall(appToken, 'POST', '/v1/transit/encrypt/orders', { plaintext });
console.log('encrypt          ', enc.status, enc.json.data.ciphertext);
const dec = await vaultCall(appToken, 'POST', '/v1/transit/decrypt/orders', {
  ciphertext: enc.json.data.ciphertext,
});
console.log(
  'decrypt          ',
  dec.status,
  Buffer.from(dec.json.data.plaintext, 'base64').toString(),
);
const denied = await vaultCall(appToken, 'POST', '/v1/transit/keys/orders/rotate');
console.log('rotate (denied)  ', denied.status, denied.json.errors);
console.log(
  'app route        ',
  (await fetch(`${base}/`)).status,
  '| other /v1 path',
  (await fetch(`${base}/v1/other`)).status,
);

if (dec.json.data.plaintext !== plaintext || denied.status !== 403)
  throw new Error('unexpected result');
await new Promise((resolve) => app.close(resolve));
