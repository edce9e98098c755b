/**
 * The README's quick start, end to end: start `transitkit server --dev` (the
 * CLI, in-memory storage, a fixed root token) and drive it with the real
 * `curl` exactly as the README shows — create a key, encrypt, decrypt, read
 * health — then stop the server with SIGTERM.
 *
 * Run: `npx tsx examples/dev-server.ts` (CI runs every example).
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// In the repository: the CLI's source (through tsx). From the installed
// package (node_modules/transitkit/examples): its built `transitkit` bin.
const source = fileURLToPath(new URL('../adapters/cli/main.ts', import.meta.url));
const cli = existsSync(source)
  ? ['--import', 'tsx', source]
  : [
      join(
        dirname(createRequire(import.meta.url).resolve('transitkit/package.json')),
        'dist/cli/main.js',
      ),
    ];
const server = spawn(
  process.execPath,
  [...cli, 'server', '--dev', '--dev-root-token', 'dev-only-token', '--listen', '127.0.0.1:0'],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let banner = '';
const address = await new Promise<string>((resolve, reject) => {
  server.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  server.stdout.setEncoding('utf8');
  server.stdout.on('data', (chunk: string) => {
    banner += chunk;
    const m = /started: (http:\/\/\S+)/.exec(banner);
    if (m?.[1]) resolve(m[1]);
  });
});
console.log(banner.trim());

const curl = (...args: string[]): string => {
  console.log(`$ curl ${args.join(' ')}`);
  const out = execFileSync('curl', ['-sS', '--fail-with-body', ...args], { encoding: 'utf8' });
  console.log(out.trim());
  return out;
};
const auth = ['-H', 'X-Vault-Token: dev-only-token'];

curl(...auth, '-X', 'POST', `${address}/v1/transit/keys/orders`);
const plaintext = Buffer.from('hello').toString('base64');
const enc = JSON.parse(
  curl(...auth, '-d', JSON.stringify({ plaintext }), `${address}/v1/transit/encrypt/orders`),
);
const dec = JSON.parse(
  curl(
    ...auth,
    '-d',
    JSON.stringify({ ciphertext: enc.data.ciphertext }),
    `${address}/v1/transit/decrypt/orders`,
  ),
);
const health = JSON.parse(curl(`${address}/v1/sys/health`));

server.kill('SIGTERM');
const [code] = await once(server, 'exit');
if (dec.data.plaintext !== plaintext) throw new Error('round trip failed');
if (health.sealed !== false) throw new Error('dev server must be unsealed');
if (code !== 0) throw new Error(`server exited with ${code}`);
