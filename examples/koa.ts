/**
 * Vault's transit API as Koa middleware, `app.use(vault.koa)`, inside an
 * existing Koa app with routes of its own: transitkit answers `/v1/*`, and
 * calls `next()` for everything else. Served by `createServer(app.callback())`
 * from `transitkit/http/node` (not `app.listen()`, whose Node parser refuses
 * Vault's `LIST`). Then a client round trip with the root token: create a
 * key, list it (`LIST`), HMAC and verify, encrypt and decrypt a batch.
 *
 * Run: `npx tsx examples/koa.ts` (CI runs every example).
 */
import Koa from 'koa';
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

const app = new Koa();
app.use(vault.koa);
app.use((ctx) => {
  if (ctx.path === '/') ctx.body = 'my app\n';
});

const server = createServer(app.callback()); // not app.listen(): keeps LIST working
const { url: base } = await server.listen(0, '127.0.0.1');

async function call(method: string, path: string, body?: unknown) {
  const r = await fetch(base + path, {
    method,
    headers: { 'X-Vault-Token': root },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: r.status === 204 ? undefined : await r.json() };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
await call('POST', '/v1/transit/keys/events');
const listed = await call('LIST', '/v1/transit/keys');
console.log('list    ', listed.status, listed.json.data.keys);
if (listed.json.data.keys.join() !== 'events') throw new Error('LIST failed');
const mac = await call('POST', '/v1/transit/hmac/events', { input: b64('event 42') });
const check = await call('POST', '/v1/transit/verify/events', {
  input: b64('event 42'),
  hmac: mac.json.data.hmac,
});
const batch = await call('POST', '/v1/transit/encrypt/events', {
  batch_input: [{ plaintext: b64('a'), reference: 'first' }, { plaintext: b64('b') }],
});
const back = await call('POST', '/v1/transit/decrypt/events', {
  batch_input: batch.json.data.batch_results.map((r: { ciphertext: string }) => ({
    ciphertext: r.ciphertext,
  })),
});
console.log('hmac    ', mac.status, mac.json.data.hmac);
console.log('verify  ', check.status, check.json.data.valid);
console.log('batch   ', batch.status, batch.json.data.batch_results);
console.log('decrypt ', back.status, back.json.data.batch_results);
const own = await fetch(`${base}/`);
console.log('app route', own.status, await own.text());

const plain = back.json.data.batch_results.map((r: { plaintext: string }) => r.plaintext);
if (check.json.data.valid !== true || plain.join() !== [b64('a'), b64('b')].join())
  throw new Error('unexpected result');
if (batch.json.data.batch_results[0].reference !== 'first') throw new Error('reference lost');
await server.close();
