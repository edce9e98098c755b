/**
 * One instance of the failover test (failover.test.ts): a {@link TransitNode}
 * on Redis (auto-unseal with the shared root key), default lease options, with
 * a revoker for `failover/` that appends `<pid> <lease id>` to a file with a
 * synchronous `appendFileSync` before returning, so the count survives SIGKILL.
 *
 * Prints one line per event on stdout: `ready <leader>` once unsealed, `active`
 * when it becomes the leader (polled every 20 ms), `issued <id> <ttl>` for each
 * lease issued from a `issue <ttl> <count>` line on stdin.
 *
 * Usage: `node --import tsx failover-child.ts REDIS_URL ROOT_KEY_B64 REVOKED_FILE`.
 */
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { RedisStorage } from '../../adapters/redis/index.js';
import { TransitNode } from '../../src/node/transit-node.js';

const [url, rootKeyB64, revokedFile] = process.argv.slice(2) as [string, string, string];
const say = (line: string) => process.stdout.write(`${line}\n`);

const storage = await RedisStorage.connect(url);
const node = new TransitNode({
  storage,
  rootKey: new Uint8Array(Buffer.from(rootKeyB64, 'base64')),
  leases: { onError: (e) => process.stderr.write(`lease error: ${String(e)}\n`) },
  async onUnseal({ leases }) {
    leases.registerRevoker('failover/', async (lease) => {
      appendFileSync(revokedFile, `${process.pid} ${lease.lease_id}\n`);
    });
  },
});
await node.start();
let leader = node.leases.isLeader();
say(`ready ${leader}`);
setInterval(() => {
  const now = node.leases.isLeader();
  if (now && !leader) say('active');
  if (!now && leader) say('standby');
  leader = now;
}, 20);

for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, ttl, count] = line.split(' ');
  if (cmd !== 'issue') continue;
  for (let i = 0; i < Number(count); i++) {
    const grant = await node.leases.issue({
      path: 'failover/creds',
      ttl: Number(ttl),
      renewable: false,
    });
    say(`issued ${grant.lease_id} ${ttl}`);
  }
}
