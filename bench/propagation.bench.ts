/**
 * Propagation of authority changes across instances (issue #15, item 1;
 * target: enforced everywhere within 1 s). Four real `transitkit server`
 * processes (from source, through tsx) on one real redis-server; on instance
 * A a change is made, and B, C and D are polled (back-to-back requests, no
 * sleeping) until each enforces it:
 *
 * - **policy**: the token's only policy is rewritten from "allow" to "deny"
 *   (and back, measured too): time until B, C and D answer 403 (then 200);
 * - **revoke**: a token that B, C and D have just accepted is revoked on A:
 *   time until they answer 403.
 *
 * The clock starts when A's write request is sent (so A's own write time is
 * included) and stops at the first answer with the new outcome (a poll takes
 * one HTTP round trip, so that is the resolution). Figures: p50/p99/max per instance sample
 * (3 per change) and of the slowest of the three ("all enforce").
 *
 * `npm run bench:propagation` (100 changes of each kind) or
 * `npx tsx bench/propagation.bench.ts --quick` (20). Needs redis-server on PATH.
 * The polls compete for the same cores as the servers, so on a small machine
 * the figures are an upper bound.
 */
import { performance } from 'node:perf_hooks';
import type { CliServer } from '../test/http/helpers.js';
import { b64 } from '../test/http/helpers.js';
import { as, createToken, startCluster, writePolicy } from '../test/multi-instance/cluster.js';

const quick = process.argv.includes('--quick');
const CHANGES = quick ? 20 : 100;
const ALLOW = 'path "transit/encrypt/*" { capabilities = ["create", "update"] }';
const DENY = 'path "transit/encrypt/*" { capabilities = ["deny"] }';
const body = { plaintext: b64('propagation') };

/** The status `node` answers for an encrypt with `token`. */
async function status(node: CliServer, token: string): Promise<number> {
  return (await as(node, token, 'POST', '/v1/transit/encrypt/bench', body)).status;
}

/** Poll `node` until it answers `want`; ms since `t0`. Gives up after 30 s. */
async function until(node: CliServer, token: string, want: number, t0: number): Promise<number> {
  for (;;) {
    const got = await status(node, token);
    const now = performance.now();
    if (got === want) return now - t0;
    if (now - t0 > 30_000) throw new Error(`still ${got}, not ${want}, after 30 s`);
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

function summary(name: string, samples: readonly number[]): string {
  const s = [...samples].sort((x, y) => x - y);
  const f = (v: number) => v.toFixed(1).padStart(8);
  return `${name.padEnd(34)} n=${String(s.length).padStart(4)}  p50 ${f(percentile(s, 50))} ms  p99 ${f(percentile(s, 99))} ms  max ${f(s[s.length - 1] ?? Number.NaN)} ms`;
}

/** Make a change on A (`change`), then time B, C and D until they answer `want`. */
async function measure(
  followers: readonly CliServer[],
  token: string,
  want: number,
  change: () => Promise<void>,
): Promise<number[]> {
  const t0 = performance.now();
  const polls = followers.map(async (n) => {
    await Promise.resolve(); // the first poll leaves after the change was sent
    return until(n, token, want, t0);
  });
  await change();
  return Promise.all(polls);
}

async function main(): Promise<void> {
  console.log(`starting redis-server and 4 servers (${CHANGES} changes of each kind)…`);
  const cluster = await startCluster(4);
  const [a, ...followers] = cluster.nodes as [CliServer, ...CliServer[]];
  const perNode: Record<string, number[]> = { policy: [], revoke: [] };
  const all: Record<string, number[]> = { policy: [], revoke: [] };
  const record = (kind: string, times: number[]) => {
    perNode[kind]?.push(...times);
    all[kind]?.push(Math.max(...times));
  };
  try {
    await writePolicy(a, 'bench', ALLOW);
    const token = await createToken(a, ['bench']);
    for (const n of followers) await until(n, token, 200, performance.now()); // warm caches
    for (let i = 0; i < CHANGES; i++) {
      const deny = i % 2 === 0;
      record(
        'policy',
        await measure(followers, token, deny ? 403 : 200, () =>
          writePolicy(a, 'bench', deny ? DENY : ALLOW),
        ),
      );
    }
    await writePolicy(a, 'bench', ALLOW);
    for (let i = 0; i < CHANGES; i++) {
      const t = await createToken(a, ['bench']);
      for (const n of followers) await until(n, t, 200, performance.now());
      record(
        'revoke',
        await measure(followers, t, 403, async () => {
          const r = await as(a, cluster.root, 'POST', '/v1/auth/token/revoke', { token: t });
          if (r.status !== 204) throw new Error(`revoke: ${r.status}`);
        }),
      );
    }
  } finally {
    await cluster.stop();
  }
  console.log('');
  console.log(summary('policy change, per instance', perNode.policy ?? []));
  console.log(summary('policy change, all of B, C, D', all.policy ?? []));
  console.log(summary('token revocation, per instance', perNode.revoke ?? []));
  console.log(summary('token revocation, all of B, C, D', all.revoke ?? []));
  const worst = Math.max(...(all.policy ?? []), ...(all.revoke ?? []));
  console.log(
    `\ntarget: every change enforced everywhere within 1000 ms — worst ${worst.toFixed(1)} ms`,
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
