/**
 * The engine's metrics: cryptographic operations by operation and key type
 * (`transitkit_crypto_operations_total`, each batch item counting one),
 * batch sizes (`transitkit_batch_size`), and the parsed-key cache's hits,
 * misses and evictions. Each endpoint module calls {@link OpRecorder} once
 * per request, after its key is loaded; without metrics the recorder is an
 * empty function.
 *
 * Label values are bounded: the operation is one of a fixed list and the
 * key type comes from the key-type registry, never the key's name.
 * @module
 */
import type { KeyCacheEvents } from '../keys/policy-store.js';
import { METRICS } from '../metrics/catalog.js';
import { metricsOff } from '../metrics/noop.js';
import type { Metrics } from '../metrics/types.js';

/** The operations counted. @internal */
export type CryptoOperation =
  | 'encrypt'
  | 'decrypt'
  | 'rewrap'
  | 'datakey'
  | 'sign'
  | 'verify'
  | 'hmac';

/**
 * Count one request of `operation` with a key of `keyType`: `batch` is its
 * `batch_input` items (each counts one, and the size is recorded), or
 * `undefined` for a single input.
 * @internal
 */
export type OpRecorder = (
  operation: CryptoOperation,
  keyType: string,
  batch: readonly unknown[] | undefined,
) => void;

const NO_OP: OpRecorder = () => undefined;

/** The recorder of `metrics` (an empty function without). @internal */
export function opRecorder(metrics: Metrics | undefined): OpRecorder {
  if (metricsOff(metrics)) return NO_OP;
  const m = metrics as Metrics;
  const ops = m.counter(METRICS.cryptoOperations);
  const sizes = m.histogram(METRICS.batchSize);
  const labels = new Map<string, Map<string, { operation: string; key_type: string }>>();
  const opLabels = new Map<string, { operation: string }>();
  return (operation, keyType, batch) => {
    let byType = labels.get(operation);
    if (!byType) {
      byType = new Map();
      labels.set(operation, byType);
    }
    let l = byType.get(keyType);
    if (!l) {
      // Frozen label objects, reused: a metrics sink may key its series on them.
      l = Object.freeze({ operation, key_type: keyType });
      byType.set(keyType, l);
    }
    ops.add(batch ? batch.length : 1, l);
    if (batch) {
      let o = opLabels.get(operation);
      if (!o) {
        o = Object.freeze({ operation });
        opLabels.set(operation, o);
      }
      sizes.record(batch.length, o);
    }
  };
}

/** The key cache's events as counters, or `undefined` without metrics. @internal */
export function keyCacheEvents(metrics: Metrics | undefined): KeyCacheEvents | undefined {
  if (metricsOff(metrics)) return undefined;
  const m = metrics as Metrics;
  const hits = m.counter(METRICS.keyCacheHits);
  const misses = m.counter(METRICS.keyCacheMisses);
  const evictions = m.counter(METRICS.keyCacheEvictions);
  return {
    hit: () => hits.add(1),
    miss: () => misses.add(1),
    evict: () => evictions.add(1),
  };
}
