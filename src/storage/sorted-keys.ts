/**
 * {@link SortedKeys}: the ordered key index of the memory and file adapters, a
 * B+tree of strings (JS string order = UTF-16 code units).
 *
 * Shape, and why:
 * - The index used to be one sorted array with `splice` inserts: O(n) per put,
 *   which made a store of a few million keys (a million leases: entry + due key
 *   each) take hours to fill. A B+tree keeps insert and remove at O(log n) and a
 *   `list` page at O(log n + page), whatever the size.
 * - Keys live only in leaves (sorted arrays of at most `order` keys), linked left
 *   to right, so a page walks leaves without going back up. Inner nodes hold
 *   separators: child `i + 1` holds the keys ≥ `keys[i]`.
 * - Small nodes (`order` 128 by default) keep each splice a short memmove and the
 *   tree shallow (4 levels at 10 million keys). Nodes are split when they overflow
 *   and borrowed into or merged when they fall below a quarter full, so every
 *   leaf is at the same depth and no path ever degenerates.
 * - The key strings are the same objects as the adapter's `Map` keys: the index
 *   adds pointers, not copies.
 * @module
 */

class Leaf {
  next: Leaf | undefined = undefined;
  constructor(public keys: string[]) {}
}

class Inner {
  /** `keys.length === children.length - 1`. */
  constructor(
    public keys: string[],
    public children: Node[],
  ) {}
}

type Node = Leaf | Inner;

/** First index whose key is >= `x` (`exclusive`: > `x`). */
function bound(keys: readonly string[], x: string, exclusive: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid] as string;
    if (k < x || (exclusive && k === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Split `items` into `Math.ceil(n / fill)` runs of nearly equal length. */
function runs<T>(items: readonly T[], fill: number): T[][] {
  const count = Math.max(1, Math.ceil(items.length / fill));
  const out: T[][] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      items.slice(
        Math.floor((i * items.length) / count),
        Math.floor(((i + 1) * items.length) / count),
      ),
    );
  }
  return out;
}

/**
 * A sorted set of strings with O(log n) insert and remove and O(log n + page)
 * listing by prefix.
 * @internal
 */
export class SortedKeys {
  readonly #max: number;
  readonly #min: number;
  #root: Node = new Leaf([]);
  #size = 0;

  /**
   * @param order - the most keys in a leaf and children in an inner node (≥ 4;
   * small values exercise splits and merges in tests).
   */
  constructor(order = 128) {
    if (!Number.isSafeInteger(order) || order < 4) throw new RangeError('order must be >= 4');
    this.#max = order;
    this.#min = Math.max(2, order >> 2);
  }

  /** Build from keys in any order (duplicates are dropped), in O(n log n). */
  static from(keys: Iterable<string>, order?: number): SortedKeys {
    const s = new SortedKeys(order);
    const sorted = [...new Set(keys)].sort();
    s.#size = sorted.length;
    if (sorted.length === 0) return s;
    // Leaves three quarters full, so the next inserts do not split at once.
    const fill = Math.max(s.#min, Math.floor((s.#max * 3) / 4));
    const leaves = runs(sorted, fill).map((k) => new Leaf(k));
    for (let i = 0; i + 1 < leaves.length; i++) (leaves[i] as Leaf).next = leaves[i + 1];
    let level: Node[] = leaves;
    let firsts: string[] = leaves.map((l) => l.keys[0] as string);
    while (level.length > 1) {
      const groups = runs(
        level.map((node, i) => [node, firsts[i] as string] as const),
        fill,
      );
      level = groups.map(
        (g) =>
          new Inner(
            g.slice(1).map(([, first]) => first),
            g.map(([node]) => node),
          ),
      );
      firsts = groups.map((g) => (g[0] as readonly [Node, string])[1]);
    }
    s.#root = level[0] as Node;
    return s;
  }

  /** Number of keys. */
  get size(): number {
    return this.#size;
  }

  /** The inner nodes from the root down to `key`'s leaf, the child slot taken in each, and the leaf. */
  #descend(key: string): { path: Inner[]; slots: number[]; leaf: Leaf } {
    const path: Inner[] = [];
    const slots: number[] = [];
    let node = this.#root;
    while (node instanceof Inner) {
      const i = bound(node.keys, key, true);
      path.push(node);
      slots.push(i);
      node = node.children[i] as Node;
    }
    return { path, slots, leaf: node };
  }

  /** Add `key` if absent; O(log n). */
  insert(key: string): void {
    const { path, slots, leaf: node } = this.#descend(key);
    const i = bound(node.keys, key, false);
    if (node.keys[i] === key) return;
    node.keys.splice(i, 0, key);
    this.#size++;
    if (node.keys.length <= this.#max) return;
    // Overflow: split upwards while a node is too big.
    const half = node.keys.length >> 1;
    const right = new Leaf(node.keys.splice(half));
    right.next = node.next;
    node.next = right;
    let sep = right.keys[0] as string;
    let child: Node = right;
    for (let d = path.length - 1; d >= 0; d--) {
      const parent = path[d] as Inner;
      const slot = slots[d] as number;
      parent.keys.splice(slot, 0, sep);
      parent.children.splice(slot + 1, 0, child);
      if (parent.children.length <= this.#max) return;
      const mid = parent.keys.length >> 1;
      sep = parent.keys[mid] as string;
      const split = new Inner(parent.keys.splice(mid + 1), parent.children.splice(mid + 1));
      parent.keys.length = mid;
      child = split;
    }
    this.#root = new Inner([sep], [this.#root, child]);
  }

  /** Remove `key` if present; O(log n). */
  remove(key: string): void {
    const { path, slots, leaf: node } = this.#descend(key);
    const i = bound(node.keys, key, false);
    if (node.keys[i] !== key) return;
    node.keys.splice(i, 1);
    this.#size--;
    // Underflow: borrow from or merge with a sibling, upwards while a node is too small.
    let current: Node = node;
    for (let d = path.length - 1; d >= 0; d--) {
      if (this.#count(current) >= this.#min) return;
      this.#rebalance(path[d] as Inner, slots[d] as number);
      current = path[d] as Inner;
    }
    const root = this.#root;
    if (root instanceof Inner && root.children.length === 1) this.#root = root.children[0] as Node;
  }

  /** Keys starting with `prefix` (and > prefix + after), without the prefix; O(log n + page). */
  page(prefix: string, after: string | undefined, limit: number): string[] {
    const start = after === undefined ? prefix : prefix + after;
    const exclusive = after !== undefined;
    let node = this.#root;
    while (node instanceof Inner) node = node.children[bound(node.keys, start, exclusive)] as Node;
    const out: string[] = [];
    let leaf: Leaf | undefined = node;
    let i = bound(leaf.keys, start, exclusive);
    while (leaf !== undefined) {
      const keys = leaf.keys;
      for (; i < keys.length; i++) {
        if (limit !== 0 && out.length >= limit) return out;
        const k = keys[i] as string;
        if (!k.startsWith(prefix)) return out; // keys sharing a prefix are contiguous
        out.push(k.slice(prefix.length));
      }
      leaf = leaf.next;
      i = 0;
    }
    return out;
  }

  /**
   * The tree's root and bounds, for the invariant check of the tests
   * (test/helpers/sorted-keys-verify.ts), which lives there so that no
   * bundle carries it.
   * @internal
   */
  shape(): { root: Leaf | Inner; min: number; max: number; size: number } {
    return { root: this.#root, min: this.#min, max: this.#max, size: this.#size };
  }

  #count(n: Node): number {
    return n instanceof Leaf ? n.keys.length : n.children.length;
  }

  /** `parent.children[slot]` is below the minimum: borrow from a sibling or merge with one. */
  #rebalance(parent: Inner, slot: number): void {
    const node = parent.children[slot] as Node;
    const left = slot > 0 ? (parent.children[slot - 1] as Node) : undefined;
    const right = parent.children[slot + 1] as Node | undefined;
    if (left !== undefined && this.#count(left) > this.#min) {
      if (node instanceof Leaf) {
        node.keys.unshift((left as Leaf).keys.pop() as string);
        parent.keys[slot - 1] = node.keys[0] as string;
      } else {
        const l = left as Inner;
        node.keys.unshift(parent.keys[slot - 1] as string);
        node.children.unshift(l.children.pop() as Node);
        parent.keys[slot - 1] = l.keys.pop() as string;
      }
      return;
    }
    if (right !== undefined && this.#count(right) > this.#min) {
      if (node instanceof Leaf) {
        const r = right as Leaf;
        node.keys.push(r.keys.shift() as string);
        parent.keys[slot] = r.keys[0] as string;
      } else {
        const r = right as Inner;
        node.keys.push(parent.keys[slot] as string);
        node.children.push(r.children.shift() as Node);
        parent.keys[slot] = r.keys.shift() as string;
      }
      return;
    }
    // Both siblings at the minimum: merge with one (the result stays within `order`).
    const at = left !== undefined ? slot - 1 : slot;
    const a = parent.children[at] as Node;
    const b = parent.children[at + 1] as Node;
    if (a instanceof Leaf) {
      const bl = b as Leaf;
      for (const k of bl.keys) a.keys.push(k);
      a.next = bl.next;
    } else {
      const bi = b as Inner;
      a.keys.push(parent.keys[at] as string);
      for (const k of bi.keys) a.keys.push(k);
      for (const c of bi.children) a.children.push(c);
    }
    parent.keys.splice(at, 1);
    parent.children.splice(at + 1, 1);
  }
}
