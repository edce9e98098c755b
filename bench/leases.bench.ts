/**
 * Lease manager at scale (issue 6): issue 1,000,000 leases into MemoryStorage
 * (20,000 with `--quick`, a few seconds for CI), then report the issue rate,
 * memory per lease (resident and JS heap), lookup latency (p50/p99 of 10,000
 * random lookups), the time to expire 100,000 leases due at the same instant
 * (2,000 quick), the worst event-loop delay while they expire (target: no stall
 * above 50 ms), and a restart: a second manager on the same storage loading the
 * schedule of the remaining leases in its first tick, with its worst delay.
 *
 * Time is a hand-driven clock, so the expiring leases share one instant and
 * the expiry is one `tick()`. Correctness is checked before anything is timed
 * (a lease issues, looks up, renews and revokes), and after the expiry (every
 * due lease revoked, none of the others) and the restart (nothing revoked,
 * the next expiry still found).
 *
 * Alone: `npx tsx bench/leases.bench.ts [--quick]` (add `--expose-gc` through
 * `NODE_OPTIONS` for steadier memory figures). From another script:
 * `printLeaseRows(await leaseBench({ quick }))`.
 */
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { LeaseManager } from '../src/leases/lease-manager.js';
// Direct module imports (not the package entry): the lease manager does not
// need the transit engine and its crypto backend loaded.
import { MemoryStorage } from '../src/storage/memory.js';

/** One printable figure. */
export interface LeaseBenchRow {
  group: 'leases';
  name: string;
  value: number;
  unit: string;
  note?: string;
}

class ManualClock {
  t = Date.UTC(2026, 0, 1);
  now(): number {
    return this.t;
  }
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const log = (s: string): void => {
  process.stderr.write(`${s}\n`);
};

/** The longest garbage-collection pause while `fn` runs (to tell GC stalls from ours). */
async function withGcWatch<T>(fn: () => Promise<T>): Promise<[T, number]> {
  let longest = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longest = Math.max(longest, e.duration);
  });
  obs.observe({ entryTypes: ['gc'] });
  try {
    const out = await fn();
    await new Promise((r) => setImmediate(r)); // let the observer deliver
    return [out, longest];
  } finally {
    obs.disconnect();
  }
}

/**
 * Watch the event loop with a 1 ms timer: the longest gap between two turns in
 * wall time, and the process CPU time spent in that longest-CPU gap. On a shared
 * machine the wall figure includes time the OS gave to other processes; the
 * CPU figure is what this process itself kept the loop busy for.
 */
function watchLoop(): () => { wallMs: number; cpuMs: number } {
  let lastWall = performance.now();
  let lastCpu = process.cpuUsage();
  let wallMs = 0;
  let cpuMs = 0;
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    wallMs = Math.max(wallMs, wall - lastWall);
    cpuMs = Math.max(cpuMs, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000);
    lastWall = wall;
    lastCpu = cpu;
  }, 1);
  return () => {
    clearInterval(timer);
    return { wallMs, cpuMs };
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function check(): Promise<void> {
  const clock = new ManualClock();
  const leases = new LeaseManager({ storage: new MemoryStorage({ clock }), clock });
  let revoked = 0;
  leases.registerRevoker('bench/', () => {
    revoked++;
  });
  const { lease_id } = await leases.issue({ path: 'bench/check', ttl: 60, renewable: true });
  if ((await leases.lookup(lease_id)).ttl !== 60) throw new Error('check: lookup ttl');
  if ((await leases.renew(lease_id, 120)).lease_duration !== 120) throw new Error('check: renew');
  await leases.revoke(lease_id);
  if (revoked !== 1) throw new Error('check: revoke');
}

/** Run the lease benchmark and return its figures. */
export async function leaseBench(options: { quick: boolean }): Promise<LeaseBenchRow[]> {
  await check();
  const total = options.quick ? 20_000 : 1_000_000;
  const expiring = options.quick ? 2_000 : 100_000;
  const every = Math.floor(total / expiring);
  const clock = new ManualClock();
  const storage = new MemoryStorage({ clock });
  const leases = new LeaseManager({ storage, clock });
  let revoked = 0;
  leases.registerRevoker('bench/', () => {
    revoked++;
  });
  await leases.tick(); // become leader with an empty heap: issues keep it current
  const sample: string[] = [];
  gc();
  const mem0 = process.memoryUsage();
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const short = i % every === 0;
    const { lease_id } = await leases.issue({
      path: short ? 'bench/creds/short' : 'bench/creds/long',
      ttl: short ? 3_600 : 7 * 86_400,
      renewable: true,
    });
    // A uniform sample of 10,000 ids to look up (reservoir sampling).
    if (sample.length < 10_000) sample.push(lease_id);
    else if (Math.random() * (i + 1) < 10_000)
      sample[Math.floor(Math.random() * 10_000)] = lease_id;
    if ((i + 1) % 100_000 === 0 && !options.quick) {
      log(`  issued ${i + 1} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
  const issueSeconds = (performance.now() - t0) / 1000;
  gc();
  const mem1 = process.memoryUsage();
  const rssPerLease = (mem1.rss - mem0.rss) / total;
  const heapPerLease =
    (mem1.heapUsed + mem1.arrayBuffers - mem0.heapUsed - mem0.arrayBuffers) / total;

  const latencies: number[] = [];
  for (let i = 0; i < 10_000; i++) {
    const id = sample[Math.floor(Math.random() * sample.length)] as string;
    const s = performance.now();
    await leases.lookup(id);
    latencies.push((performance.now() - s) * 1000);
  }
  latencies.sort((a, b) => a - b);

  clock.t += 3_600_000;
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const e0 = performance.now();
  const stopWatch = watchLoop();
  const [tick, expireGc] = await withGcWatch(() => leases.tick());
  const expireLoop = stopWatch();
  const expireMs = performance.now() - e0;
  delay.disable();
  if (tick.revoked !== expiring || revoked !== expiring) {
    throw new Error(
      `expected ${expiring} revocations, got ${tick.revoked} (${revoked} revoker calls)`,
    );
  }
  if ((await leases.list('bench/creds/short')).keys.length !== 0) throw new Error('leases left');
  await leases.stop();

  // Restart: a new manager on the same storage loads the schedule in its first tick.
  const restarted = new LeaseManager({ storage, clock });
  restarted.registerRevoker('bench/', () => {
    revoked++;
  });
  const loadDelay = monitorEventLoopDelay({ resolution: 1 });
  loadDelay.enable();
  const r0 = performance.now();
  const stopLoadWatch = watchLoop();
  const [first, loadGc] = await withGcWatch(() => restarted.tick());
  const loadLoop = stopLoadWatch();
  const loadMs = performance.now() - r0;
  loadDelay.disable();
  if (!first.leader || first.revoked !== 0 || revoked !== expiring) {
    throw new Error(`restart: unexpected first tick ${JSON.stringify(first)}`);
  }
  const one = await restarted.issue({ path: 'bench/after', ttl: 60, renewable: false });
  clock.t += 60_000;
  if ((await restarted.tick()).revoked !== 1)
    throw new Error(`restart: ${one.lease_id} not expired`);
  await restarted.stop();
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    {
      group: 'leases',
      name: 'issue rate',
      value: total / issueSeconds,
      unit: 'leases/s',
      note: `${n(total)} leases in ${issueSeconds.toFixed(1)} s`,
    },
    {
      group: 'leases',
      name: 'resident memory per lease',
      value: rssPerLease,
      unit: 'bytes',
      note: (globalThis as { gc?: unknown }).gc ? 'after gc()' : 'no --expose-gc',
    },
    {
      group: 'leases',
      name: 'JS heap + buffers per lease',
      value: heapPerLease,
      unit: 'bytes',
      note: (globalThis as { gc?: unknown }).gc ? 'after gc()' : 'no --expose-gc',
    },
    { group: 'leases', name: 'lookup p50', value: percentile(latencies, 50), unit: 'µs' },
    { group: 'leases', name: 'lookup p99', value: percentile(latencies, 99), unit: 'µs' },
    {
      group: 'leases',
      name: `expire ${n(expiring)} due at once`,
      value: expireMs,
      unit: 'ms',
      note: `among ${n(total)}`,
    },
    {
      group: 'leases',
      name: 'worst event-loop delay',
      value: delay.max / 1e6,
      unit: 'ms',
      note: 'target ≤ 50 ms',
    },
    {
      group: 'leases',
      name: 'longest busy stretch on CPU',
      value: expireLoop.cpuMs,
      unit: 'ms',
      note: 'CPU time between two loop turns, contention-independent',
    },
    {
      group: 'leases',
      name: 'longest GC pause',
      value: expireGc,
      unit: 'ms',
      note: 'during the expiry',
    },
    {
      group: 'leases',
      name: 'event-loop delay p99',
      value: delay.percentile(99) / 1e6,
      unit: 'ms',
      note: 'during the expiry',
    },
    {
      group: 'leases',
      name: 'restart: load the schedule',
      value: loadMs,
      unit: 'ms',
      note: `${n(total - expiring)} leases, first tick of a new manager`,
    },
    {
      group: 'leases',
      name: 'restart: worst event-loop delay',
      value: loadDelay.max / 1e6,
      unit: 'ms',
      note: 'target ≤ 50 ms',
    },
    {
      group: 'leases',
      name: 'restart: longest busy stretch on CPU',
      value: loadLoop.cpuMs,
      unit: 'ms',
    },
    {
      group: 'leases',
      name: 'restart: longest GC pause',
      value: loadGc,
      unit: 'ms',
    },
  ];
}

/** Print rows as an aligned table. */
export function printLeaseRows(rows: LeaseBenchRow[]): void {
  const w = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    const v = r.value >= 100 ? Math.round(r.value).toLocaleString('en-US') : r.value.toFixed(2);
    console.log(
      `${r.group.padEnd(8)} ${r.name.padEnd(w)} ${v.padStart(12)} ${r.unit}${r.note ? `  (${r.note})` : ''}`,
    );
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  console.log(`lease bench — node ${process.version}${quick ? ' (quick)' : ''}`);
  printLeaseRows(await leaseBench({ quick }));
}
