/**
 * RSA key generation must not block the event loop (issue 3): creating an
 * rsa-4096 key through the engine, on each backend, while
 * `perf_hooks.monitorEventLoopDelay` samples every 10 ms, keeps the worst
 * delay under 50 ms. The host is shared and noisy (CPU starvation by other
 * processes, or other test files in parallel, shows up as event-loop delay
 * too), so each attempt first waits (up to 5 s) for a quiet spell — an idle
 * half-second with a worst delay under 25 ms — and up to three measured
 * attempts are made, each logged beside the idle delay just before it; one
 * attempt under the bound passes. A blocking generator would show ~1 s.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MemoryStorage, Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';

const BOUND_MS = 50;
const ATTEMPTS = 3;
const QUIET_MS = 25;
const QUIET_WAIT_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Worst event-loop delay (ms) while `work` runs. */
async function worstDelayMs(work: () => Promise<unknown>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  await work();
  h.disable();
  return h.max / 1e6;
}

describe.each(BACKENDS)('rsa-4096 creation on %s', (backendName, backend) => {
  it(`keeps the worst event-loop delay under ${BOUND_MS} ms`, async () => {
    const transit = new Transit({
      storage: new MemoryStorage(),
      crypto: backend,
      autoRotate: false,
    });
    // Warm-up (module loading, first JIT of the codecs) is not measured.
    await transit.createKey('warm', { type: 'rsa-2048' });
    const seen: number[] = [];
    for (let i = 1; i <= ATTEMPTS; i++) {
      let idle = await worstDelayMs(() => sleep(500));
      for (let waited = 0; idle >= QUIET_MS && waited < QUIET_WAIT_MS; waited += 500) {
        idle = await worstDelayMs(() => sleep(500));
      }
      const ms = await worstDelayMs(() => transit.createKey(`k${i}`, { type: 'rsa-4096' }));
      seen.push(ms);
      console.log(
        `[rsa-event-loop] ${backendName} attempt ${i}: worst delay ${ms.toFixed(1)} ms (idle host: ${idle.toFixed(1)} ms)`,
      );
      if (ms < BOUND_MS) break;
    }
    expect(Math.min(...seen)).toBeLessThan(BOUND_MS);
    const info = await transit.readKey('k1');
    expect(info.type).toBe('rsa-4096');
  }, 180_000);
});
