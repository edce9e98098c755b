/**
 * The key policy's `auto_rotate_period`: a `TypeDurationSecond` (parsed by
 * `src/request.ts`) that is 0 or at least an hour, refused in Vault's
 * framework wording (`Field validation failed: ...`, reference §9, §13).
 * @module
 */
import { invalidRequest } from '../errors.js';
import { durationSeconds, shownValue } from '../request.js';

/** Minimum non-zero auto-rotation period: one hour. @internal */
export const MIN_AUTO_ROTATE_SECONDS = 3600;

/**
 * Parse and check `auto_rotate_period`: 0 or at least one hour. A value that
 * is not a duration is refused with Vault's framework text (the field is a
 * `TypeDurationSecond`): `Field validation failed: error converting input <v>
 * for field "auto_rotate_period": <why>` (reference §9, §13); a period under
 * an hour with the handler's own text.
 * @internal
 */
export function parseAutoRotatePeriod(value: unknown): number {
  const s = durationSeconds(value);
  if (typeof s !== 'number') {
    throw invalidRequest(
      `Field validation failed: error converting input ${shownValue(value)} for field "auto_rotate_period": ${s.why}`,
    );
  }
  if (s !== 0 && s < MIN_AUTO_ROTATE_SECONDS) {
    throw invalidRequest('auto rotate period must be 0 to disable or at least an hour');
  }
  return s;
}
