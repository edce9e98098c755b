/**
 * The child process of `crash.test.ts`: opens the file store through the
 * barrier (auto-unseal), then writes and rotates in a loop until it is killed
 * with SIGKILL. Every operation is acknowledged on stdout (one JSON line)
 * only after the call resolved, i.e. after the write was durable. Pipe writes
 * are synchronous on Linux, so an acknowledgement the parent reads was made
 * before the kill.
 *
 * Usage: `node crash-child.mjs DIR ROOT_KEY_BASE64`. Bundled by the test with
 * esbuild, so a round starts in milliseconds rather than seconds.
 */
import { FileStorage } from '../../adapters/file/index.js';
import { TransitNode } from '../../src/node/transit-node.js';

const [dir, rootKeyB64] = process.argv.slice(2) as [string, string];
const ack = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);
const rand = () => Math.random().toString(36).slice(2);

const storage = await FileStorage.open(dir);
const node = new TransitNode({
  storage,
  rootKey: new Uint8Array(Buffer.from(rootKeyB64, 'base64')),
  leases: { tickMs: false },
  transit: { autoRotate: false },
});
await node.start();
ack({ op: 'ready' });
const names = ['k0', 'k1', 'k2', 'k3'];
for (const name of names) {
  await node.transit.createKey(name);
  ack({ op: 'create', name });
}
for (let i = 0; ; i++) {
  const name = names[i % names.length] as string;
  const r = Math.random();
  if (r < 0.06) {
    const { term } = await node.rotateKeyring();
    ack({ op: 'term', term });
  } else if (r < 0.3) {
    const info = await node.transit.rotateKey(name);
    ack({ op: 'rotate', name, version: info.latest_version });
  } else if (r < 0.4) {
    const secret = rand();
    const { lease_id } = await node.leases.issue({
      path: 'crash/creds',
      ttl: '24h',
      renewable: true,
      data: { secret },
    });
    ack({ op: 'lease', id: lease_id, secret });
  } else {
    const pt = Buffer.from(`plaintext ${i} ${rand()}`).toString('base64');
    const { ciphertext } = await node.transit.encrypt(name, { plaintext: pt });
    ack({ op: 'enc', name, pt, ct: ciphertext });
  }
}
