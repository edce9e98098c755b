/**
 * The noble {@link AsymmetricBackend}, loaded on first use: every method is
 * asynchronous already, so each one here awaits a dynamic `import()` of
 * `./asymmetric.ts` (`@noble/curves`, the RSA paddings, WebCrypto RSA) and
 * calls the real one. A bundle of the core for symmetric use (AEAD, HMAC)
 * then leaves the curve and RSA code in a chunk it never fetches (issue 22:
 * the edge build); the first signature costs one chunk load.
 *
 * No `node:` import may appear in this folder.
 *
 * @module
 */
import type { AsymmetricBackend } from '../asymmetric-backend.js';

type Methods = Omit<AsymmetricBackend, 'name'>;

/** Every method of {@link AsymmetricBackend} (checked complete below). */
const METHODS = [
  'generateEc',
  'generateEd25519',
  'generateRsa',
  'ed25519PublicKey',
  'ecdsaSign',
  'ecdsaVerify',
  'ed25519Sign',
  'ed25519Verify',
  'rsaSignPss',
  'rsaVerifyPss',
  'rsaSignPkcs1',
  'rsaVerifyPkcs1',
  'rsaOaepEncrypt',
  'rsaOaepDecrypt',
] as const satisfies readonly (keyof Methods)[];

// Compile-time: a method added to AsymmetricBackend must be listed above.
type Unlisted = Exclude<keyof Methods, (typeof METHODS)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : never = true;
void everyMethodListed;

let loading: Promise<AsymmetricBackend> | undefined;

/** The real backend (once; a failed load is retried on the next call). */
function load(): Promise<AsymmetricBackend> {
  loading ??= import('./asymmetric.js').then(
    (m) => m.nobleAsymmetric,
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

function lazyMethod<K extends keyof Methods>(name: K): Methods[K] {
  const call = async (...args: unknown[]): Promise<unknown> => {
    const real = (await load())[name] as (...a: unknown[]) => Promise<unknown>;
    return real(...args);
  };
  return call as Methods[K];
}

/**
 * The noble asymmetric backend behind dynamic imports; same behaviour as
 * `nobleAsymmetric` (`./asymmetric.ts`).
 * @internal
 */
export const lazyNobleAsymmetric: AsymmetricBackend = /* @__PURE__ */ Object.freeze({
  name: 'noble',
  ...(Object.fromEntries(METHODS.map((m) => [m, lazyMethod(m)])) as Methods),
});
