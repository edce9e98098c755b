/**
 * Vault's transit API mounted inside an existing Express app with
 * `app.use(vault.node)`: the app keeps its own routes and JSON body parser,
 * transitkit serves `/v1/*`, and anything it does not serve goes on to the
 * app's next handlers (here a 404 page). The app is served by `createServer`
 * from `transitkit/http/node`, not `app.listen()`: Vault clients list with the
 * `LIST` method, which Node's own HTTP parser refuses before Express runs.
 * Then a client round trip with the root token: create a key, list (`LIST`),
 * encrypt, decrypt, sign and verify.
 *
 * Run: `npx tsx examples/express.ts` (CI runs every example).
 */
import express from 'express';
import { MemoryStorage, Transit } from 'transitkit';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';
import { createServer } from 'transitkit/http/node';

const storage = new MemoryStorage();
const tokens = new TokenStore({ storage });
const root = await tokens.createRoot();
const vault = createHandler({
  transit: new Transit({ storage }),
  tokens,
  policies: new AclPolicyStore({ storage }),
});

// The existing app: a JSON API of its own, transitkit beside it.
const app = express();
app.use(express.json()); // transitkit reads an already-parsed body too
app.get('/orders', (_req, res) => {
  res.json({ orders: [] });
});
app.use(vault.node);
app.use((_req, res) => {
  res.status(404).send('not found\n');
});

const server = createServer(app); // not app.listen(): keeps LIST working
const { url: base } = await server.listen(0, '127.0.0.1');

async function call(method: string, path: string, body?: unknown) {
  const r = await fetch(base + path, {
    method,
    headers: { 'X-Vault-Token': root, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: r.status === 204 ? undefined : await r.json() };
}

await call('POST', '/v1/transit/keys/orders');
await call('POST', '/v1/transit/keys/signer', { type: 'ed25519' });
const listed = await call('LIST', '/v1/transit/keys');
console.log('list    ', listed.status, listed.json.data.keys);
if (listed.json.data.keys.join() !== 'orders,signer') throw new Error('LIST failed');
const plaintext = Buffer.from('card 4111-1111').toString('base64');
const enc = await call('POST', '/v1/transit/encrypt/orders', { plaintext });
const dec = await call('POST', '/v1/transit/decrypt/orders', {
  ciphertext: enc.json.data.ciphertext,
});
const sig = await call('POST', '/v1/transit/sign/signer', { input: plaintext });
const ver = await call('POST', '/v1/transit/verify/signer', {
  input: plaintext,
  signature: sig.json.data.signature,
});
console.log('encrypt ', enc.status, enc.json.data.ciphertext);
console.log('decrypt ', dec.status, Buffer.from(dec.json.data.plaintext, 'base64').toString());
console.log('sign    ', sig.status, sig.json.data.signature);
console.log('verify  ', ver.status, ver.json.data.valid);
const own = await fetch(`${base}/orders`);
const other = await fetch(`${base}/nothing-here`);
console.log('app route', own.status, '| unknown route', other.status);

if (dec.json.data.plaintext !== plaintext || ver.json.data.valid !== true || own.status !== 200)
  throw new Error('unexpected result');
if (other.status !== 404) throw new Error('unserved paths must reach the next handler');
await server.close();
