/**
 * Vault's transit API as a fetch handler — the shape Hono, Bun, Deno and
 * Cloudflare Workers serve (`export default { fetch }`, or in Hono
 * `app.all('/v1/*', (c) => vault.fetch(c.req.raw))`). Here the app is called
 * directly with `Request` objects, no socket: encrypt, decrypt, hash and a
 * health probe.
 *
 * Run: `npx tsx examples/fetch.ts` (CI runs every example).
 */
import { MemoryStorage, Transit } from 'transitkit';
import { AclPolicyStore, createHandler, TokenStore } from 'transitkit/http';

const storage = new MemoryStorage();
const tokens = new TokenStore({ storage });
const root = await tokens.createRoot();
const vault = createHandler({
  transit: new Transit({ storage }),
  tokens,
  policies: new AclPolicyStore({ storage }),
});

// An existing fetch-style app that mounts transitkit under /v1.
const app = {
  fetch(request: Request): Promise<Response> | Response {
    const { pathname } = new URL(request.url);
    if (pathname.startsWith('/v1/')) return vault.fetch(request);
    return new Response('my app\n');
  },
};

const post = (path: string, body: unknown) =>
  app.fetch(
    new Request(`https://kms.example${path}`, {
      method: 'POST',
      headers: { 'X-Vault-Token': root },
      body: JSON.stringify(body),
    }),
  );

const plaintext = btoa('hello from fetch');
const enc = await (await post('/v1/transit/encrypt/notes', { plaintext })).json();
console.log('encrypt', enc.data.ciphertext);
const dec = await (
  await post('/v1/transit/decrypt/notes', { ciphertext: enc.data.ciphertext })
).json();
console.log('decrypt', atob(dec.data.plaintext));
const sum = await (
  await post('/v1/transit/hash/sha2-256', { input: plaintext, format: 'base64' })
).json();
console.log('sha2-256', sum.data.sum);
const health = await app.fetch(
  new Request('https://kms.example/v1/sys/health', { method: 'HEAD' }),
);
console.log('health', health.status, health.headers.get('cache-control'));
console.log('app', await (await app.fetch(new Request('https://kms.example/'))).text());

if (dec.data.plaintext !== plaintext || health.status !== 200) throw new Error('unexpected result');
