/**
 * The statistics the benches share, so a figure is reduced the same way
 * everywhere.
 */

/**
 * The upper median: the middle value of an odd count, the upper of the two
 * middle values of an even one, 0 when empty. It is always one of the
 * measured values, so a row's value and the round it came from agree.
 */
export const upperMedian = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

/** The median: the mean of the two middle values of an even count, NaN when empty. */
export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
