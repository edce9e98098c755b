/**
 * transitkit in-process: create a key, encrypt and decrypt, rotate and rewrap,
 * HMAC and verify — all without ever touching key material.
 *
 * Run: `npm run example` (runs this file from source through tsx; `transitkit` maps to
 * `src/index.ts` by the tsconfig's `paths`).
 */
import { Transit, TransitError } from 'transitkit';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (s: string) => Buffer.from(s, 'base64').toString();

const transit = new Transit(); // memory storage, node:crypto backend

await transit.createKey('orders', { type: 'aes256-gcm96' });

const { ciphertext } = await transit.encrypt('orders', { plaintext: b64('card 4111-1111') });
console.log('encrypted  ', ciphertext);
console.log('decrypted  ', text((await transit.decrypt('orders', { ciphertext })).plaintext));

await transit.rotateKey('orders');
const rewrapped = await transit.rewrap('orders', { ciphertext });
console.log('rewrapped  ', rewrapped.ciphertext);

const batch = await transit.encrypt('orders', {
  batch_input: [
    { plaintext: b64('one'), reference: 'a' },
    { plaintext: b64('two'), reference: 'b' },
  ],
});
console.log(
  'batch      ',
  batch.batch_results.map((r) => `${r.reference}=${r.ciphertext}`),
);

const { hmac } = await transit.hmac('orders', { input: b64('invoice 42'), algorithm: 'sha2-512' });
const { valid } = await transit.verify('orders', {
  input: b64('invoice 42'),
  hmac,
  hash_algorithm: 'sha2-512',
});
console.log('hmac valid ', valid);

try {
  await transit.decrypt('orders', { ciphertext: `${ciphertext.slice(0, -4)}AAA=` });
} catch (e) {
  if (!(e instanceof TransitError)) throw e;
  console.log('tampered   ', e.code, '-', e.message);
}

const info = await transit.readKey('orders');
console.log('versions   ', Object.keys(info.keys).join(', '), '(latest', `${info.latest_version})`);
await transit.close();
