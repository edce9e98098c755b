/**
 * Automatic rotation (reference §13): keys whose `auto_rotate_period` has
 * elapsed since their latest version was created are rotated. {@link autoRotateTick}
 * does one pass on the engine clock; the facade schedules passes with a timer
 * (tests call the pass directly with a fake clock, never sleep). Given a node's
 * `Leadership` (src/node/leadership.ts), the timer runs a pass only while this
 * instance holds the leader lock, the one lease expiry runs under.
 *
 * Skipped: period 0, soft-deleted keys, imported keys that do not allow
 * rotation. The due check is repeated under the key's lock, so overlapping
 * passes never rotate a key twice. One failure does not stop the pass.
 * @module
 */
import type { Engine } from './engine.js';
import { isDue, rotate } from './rotate-config.js';

/** Outcome of one auto-rotation pass. @public */
export interface AutoRotateResult {
  /** Names of the keys rotated in this pass. */
  rotated: string[];
  /** Keys that failed to rotate, with the reason. */
  errors: { name: string; error: string }[];
}

const PAGE = 500;

/**
 * One pass over all keys. With `proceed` (the timer's), the pass stops at the
 * first key for which it says no: the engine is closing, or this instance no
 * longer leads (another has the duty now).
 * @internal
 */
export async function autoRotateTick(
  e: Engine,
  proceed?: () => Promise<boolean>,
): Promise<AutoRotateResult> {
  const result: AutoRotateResult = { rotated: [], errors: [] };
  let after = '';
  for (;;) {
    const names = await e.store.list(after, PAGE);
    for (const name of names) {
      if (proceed && !(await proceed().catch(() => false))) return result;
      try {
        const key = await e.store.get(name);
        if (!key || !(await isDue(e, key))) continue;
        if ((await rotate(e, name, true)).rotated) result.rotated.push(name);
      } catch (err) {
        result.errors.push({ name, error: err instanceof Error ? err.message : 'unknown error' });
      }
    }
    if (names.length < PAGE) break;
    after = names[names.length - 1] as string;
  }
  return result;
}
