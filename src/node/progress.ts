/**
 * The unseal key shares submitted so far (Vault's unseal progress): a share
 * given twice counts once (compared in constant time), the first share of an
 * attempt draws a new `nonce`, and reaching the threshold hands the shares
 * over and starts afresh. Shares are wiped when dropped.
 *
 * Runtime-neutral.
 * @module
 */

/** @internal */
export class UnsealProgress {
  readonly #equal: (a: Uint8Array, b: Uint8Array) => boolean;
  #shares: Uint8Array[] = [];
  #nonce = '';

  constructor(equal: (a: Uint8Array, b: Uint8Array) => boolean) {
    this.#equal = equal;
  }

  /** Shares held. */
  get count(): number {
    return this.#shares.length;
  }

  /** The current attempt's id; empty when no share is held. */
  get nonce(): string {
    return this.#nonce;
  }

  /**
   * Add a share; at `threshold` distinct shares, returns them all (the caller
   * owns and wipes them) and resets. Otherwise `undefined`.
   */
  add(share: Uint8Array, threshold: number): Uint8Array[] | undefined {
    if (this.#shares.some((s) => this.#equal(s, share))) {
      share.fill(0);
      return undefined;
    }
    if (this.#shares.length === 0) this.#nonce = globalThis.crypto.randomUUID();
    this.#shares.push(share);
    if (this.#shares.length < threshold) return undefined;
    const all = this.#shares;
    this.#shares = [];
    this.#nonce = '';
    return all;
  }

  /** Drop (and wipe) the shares held. */
  reset(): void {
    for (const s of this.#shares) s.fill(0);
    this.#shares = [];
    this.#nonce = '';
  }
}
