/**
 * The declared placeholders of README.md's code blocks (test/readme.test.ts
 * explains the convention). A `ts` block may use these names without
 * declaring them — they stand for what a reader already has: the engine of
 * the blocks before, a store, a Redis URL, a CA… Each is real: a live
 * redis-server and PostgreSQL, an openssl CA, a BYOK blob built exactly as
 * the README describes. Anything else a block uses it must declare or import.
 *
 * To declare a new placeholder: add a getter here with a TSDoc line saying
 * what it stands for; README.md's Development section lists them.
 */
import { execFileSync } from 'node:child_process';
import {
  createCipheriv,
  createPublicKey,
  constants as cryptoConstants,
  generateKeyPairSync,
  publicEncrypt,
  randomBytes,
} from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RevokableLease } from '../../src/index.js';
import { MemoryStorage, Transit } from '../../src/index.js';
import { NO_POSTGRES_REASON, PostgresServer, SKIP_POSTGRES } from '../helpers/postgres-server.js';
import { NO_REDIS_REASON, RedisServer, SKIP_REDIS } from '../helpers/redis-server.js';

/**
 * Thrown by a placeholder whose program is missing outside CI: the block is
 * skipped with this reason (in CI the placeholder fails instead).
 */
export class MissingTool extends Error {}

const cleanups: Array<() => Promise<void> | void> = [];
const memo = new Map<string, Promise<unknown>>();

/** The value of `make`, made once for the whole README. */
function once<T>(name: string, make: () => Promise<T>): Promise<T> {
  let p = memo.get(name) as Promise<T> | undefined;
  if (!p) {
    p = make();
    memo.set(name, p);
  }
  return p;
}

const work = mkdtempSync(path.join(tmpdir(), 'transitkit-readme-'));
cleanups.push(() => rmSync(work, { recursive: true, force: true }));

const openssl = (args: string[]): string =>
  execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** BYOK: RSA-OAEP(SHA-256) of a fresh AES-256 key ‖ AES-KWP(that key, material), base64. */
function importBlobFor(wrappingKeyPem: string, material: Uint8Array): string {
  const ephemeral = randomBytes(32);
  const kwp = createCipheriv('id-aes256-wrap-pad', ephemeral, Buffer.from('A65959A6', 'hex'));
  const wrapped = Buffer.concat([kwp.update(material), kwp.final()]);
  const encKey = publicEncrypt(
    {
      key: createPublicKey(wrappingKeyPem),
      padding: cryptoConstants.RSA_PKCS1_OAEP_PADDING,
      oaepHash: 'sha256',
    },
    ephemeral,
  );
  return Buffer.concat([encKey, wrapped]).toString('base64');
}

/** A P-256 private key as PKCS#8 DER, the material of an imported `ecdsa-p256` key. */
const p256Pkcs8 = (): Uint8Array =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
    format: 'der',
    type: 'pkcs8',
  });

/** Every placeholder a README block may use undeclared. */
export const readme = {
  /** The in-process engine the blocks share (memory storage), like one reader's session. */
  transit: (): Promise<Transit> =>
    once('transit', async () => {
      const t = new Transit({ storage: new MemoryStorage(), autoRotate: false });
      cleanups.push(() => t.close());
      return t;
    }),

  /** A new, empty `MemoryStorage` for the block (stands for the application's store). */
  storage: async (): Promise<MemoryStorage> => new MemoryStorage(),

  /** 32 random bytes: an auto-unseal root key, as the application's KMS would hand it over. */
  rootKey: async (): Promise<Uint8Array> => randomBytes(32),

  /** The application's own clean-up a lease revoker calls (here: records the lease data). */
  dropUser: async (): Promise<(data: RevokableLease['data']) => Promise<void>> => async () => {},

  /** The URL of a running Redis (a real redis-server on a free port). */
  redisUrl: (): Promise<string> =>
    once('redis', async () => {
      if (SKIP_REDIS) throw new MissingTool(NO_REDIS_REASON);
      const server = await RedisServer.start();
      cleanups.push(() => server.stop());
      return server.url;
    }),

  /** The URL of a running PostgreSQL (a real cluster in a temp directory). */
  postgresUrl: (): Promise<string> =>
    once('postgres', async () => {
      if (SKIP_POSTGRES) throw new MissingTool(NO_POSTGRES_REASON);
      const server = await PostgresServer.start();
      cleanups.push(() => server.stop());
      return server.url;
    }),

  /** A BYOK import blob of an ECDSA P-256 key, wrapped for the shared engine's wrapping key. */
  importBlob: async (): Promise<string> =>
    importBlobFor((await (await readme.transit()).getWrappingKey()).public_key, p256Pkcs8()),

  /** Another such blob: the next version of the same imported key. */
  nextImportBlob: async (): Promise<string> =>
    importBlobFor((await (await readme.transit()).getWrappingKey()).public_key, p256Pkcs8()),

  /** Another instance's wrapping key: an RSA-4096 public key, PEM. */
  theirWrappingKey: (): Promise<string> =>
    once(
      'their-wrapping-key',
      async () =>
        generateKeyPairSync('rsa', { modulusLength: 4096 }).publicKey.export({
          format: 'pem',
          type: 'spki',
        }) as string,
    ),

  /** The application's CA: issues a certificate for a CSR, returns leaf then CA PEM (openssl). */
  issueCertificate: (): Promise<(csrPem: string) => Promise<string>> =>
    once('ca', async () => {
      const key = path.join(work, 'ca.key');
      const cert = path.join(work, 'ca.pem');
      openssl([
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
        ...['-keyout', key, '-out', cert, '-subj', '/CN=README CA', '-days', '2'],
        ...['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=keyCertSign'],
      ]);
      let n = 0;
      return async (csrPem: string) => {
        const csr = path.join(work, `leaf${n}.csr`);
        const leaf = path.join(work, `leaf${n++}.pem`);
        writeFileSync(csr, csrPem);
        openssl(['x509', '-req', '-in', csr, '-CA', cert, '-CAkey', key, '-out', leaf]);
        openssl(['x509', '-in', leaf, '-noout']); // well-formed
        return openssl(['x509', '-in', leaf]) + openssl(['x509', '-in', cert]);
      };
    }),
};

/** The placeholder names. */
export type PlaceholderName = keyof typeof readme;

/** Stop the servers, close the engine, remove temp files. */
export async function closePlaceholders(): Promise<void> {
  for (const c of cleanups.reverse()) await c();
  cleanups.length = 0;
  memo.clear();
}
