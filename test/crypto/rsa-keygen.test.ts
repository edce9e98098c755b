/**
 * RSA-4096 generation must not block the event loop (it takes seconds): node
 * runs `generateKeyPair` in the libuv threadpool, WebCrypto `generateKey`
 * (noble backend) as an async job off the main thread. Measured for real
 * while the key is being generated:
 * - `perf_hooks.monitorEventLoopDelay` (10 ms resolution): the longest gap
 *   between timer turns must stay under 50 ms;
 * - event-loop utilisation (time the loop spent running JS) must stay low.
 *
 * A blocking implementation stalls for the whole generation (hundreds of ms
 * to seconds) on every attempt. On a loaded 2-core host, though, the OS can
 * deschedule an idle main thread for a few tens of ms while the key-generation
 * thread and other processes run (observed: 20–65 ms single spikes with p99
 * ≈ 13–25 ms, also around a plain `generateKeyPair` and an idle `setTimeout`).
 * So each backend gets up to 3 attempts, each a full generation measured on its
 * own; one attempt under 50 ms passes, and every attempt is logged.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { AsymmetricBackend, RsaPrivateKey } from '../../src/crypto/asymmetric-backend.js';
import { decodePkcs1PrivateKey, encodePkcs1PrivateKey } from '../../src/crypto/pki/keys.js';
import { BACKENDS, utf8 } from './asymmetric-helpers.js';

const MAX_STALL_MS = 50;
const MAX_UTILIZATION = 0.25;
const ATTEMPTS = 3;

interface Measurement {
  key: RsaPrivateKey;
  elapsedMs: number;
  maxDelayMs: number;
  p99Ms: number;
  utilization: number;
}

async function measure(backend: AsymmetricBackend): Promise<Measurement> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  const elu0 = performance.eventLoopUtilization();
  h.enable();
  const started = performance.now();
  const key = await backend.generateRsa(4096);
  const elapsedMs = performance.now() - started;
  h.disable();
  const utilization = performance.eventLoopUtilization(elu0).utilization;
  return {
    key,
    elapsedMs,
    maxDelayMs: Number(h.max) / 1e6,
    p99Ms: h.percentile(99) / 1e6,
    utilization,
  };
}

for (const [name, backend] of BACKENDS) {
  describe(`RSA key generation [${name}]`, () => {
    it('rsa-4096 generation keeps the event loop responsive (max delay < 50 ms)', async () => {
      const runs: Measurement[] = [];
      for (let i = 0; i < ATTEMPTS; i++) {
        const m = await measure(backend);
        runs.push(m);
        console.log(
          `[${name}] attempt ${i + 1}: rsa-4096 in ${m.elapsedMs.toFixed(0)} ms; event-loop delay max ` +
            `${m.maxDelayMs.toFixed(1)} ms, p99 ${m.p99Ms.toFixed(1)} ms; loop utilisation ${m.utilization.toFixed(3)}`,
        );
        if (m.maxDelayMs < MAX_STALL_MS) break;
      }
      const best = runs.reduce((a, b) => (a.maxDelayMs <= b.maxDelayMs ? a : b));
      expect(best.maxDelayMs).toBeLessThan(MAX_STALL_MS);
      for (const m of runs) expect(m.utilization).toBeLessThan(MAX_UTILIZATION);

      const { key } = best;
      expect(key.n.toString(2).length).toBe(4096);
      expect(key.e).toBe(65537n);
      expect(decodePkcs1PrivateKey(encodePkcs1PrivateKey(key))).toEqual(key); // validates p·q = n, CRT values
      const msg = utf8('the quick brown fox');
      const sig = await backend.rsaSignPkcs1(key, 'sha256', { message: msg });
      for (const [, other] of BACKENDS)
        expect(await other.rsaVerifyPkcs1(key, 'sha256', { message: msg }, sig)).toBe(true);
    }, 60_000);

    it('refuses sizes other than 2048/3072/4096', async () => {
      await expect(backend.generateRsa(1024 as 2048)).rejects.toThrow(RangeError);
    });
  });
}
