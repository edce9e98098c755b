/**
 * The invariant check of `SortedKeys` (src/storage/sorted-keys.ts), kept
 * with the tests so that no bundle carries it: sorted, linked, balanced,
 * every node within its bounds. Throws on the first violation.
 */
import type { SortedKeys } from '../../src/storage/kit.js';

type Shape = ReturnType<SortedKeys['shape']>;
type Node = Shape['root'];
type Leaf = Extract<Node, { next: unknown }>;

const isLeaf = (n: Node): n is Leaf => !('children' in n);

/** Check `tree`; returns the depth of its leaves (0 when the root is a leaf). */
export function verifySortedKeys(tree: SortedKeys): number {
  const { root, min, max, size } = tree.shape();
  const leaves: Leaf[] = [];
  const walk = (n: Node, depth: number, lo: string | undefined, hi: string | undefined): number => {
    const isRoot = n === root;
    if (isLeaf(n)) {
      if (!isRoot && n.keys.length < min) throw new Error('leaf underflow');
      if (n.keys.length > max) throw new Error('leaf overflow');
      for (let i = 0; i < n.keys.length; i++) {
        const k = n.keys[i] as string;
        if (i > 0 && !((n.keys[i - 1] as string) < k)) throw new Error('leaf not sorted');
        if ((lo !== undefined && k < lo) || (hi !== undefined && k >= hi)) {
          throw new Error('key outside its separators');
        }
      }
      leaves.push(n);
      return depth;
    }
    if (n.keys.length !== n.children.length - 1) throw new Error('inner arity');
    if (n.children.length > max) throw new Error('inner overflow');
    if (n.children.length < (isRoot ? 2 : min)) throw new Error('inner underflow');
    let leafDepth = -1;
    n.children.forEach((c, i) => {
      const d = walk(c, depth + 1, i === 0 ? lo : n.keys[i - 1], n.keys[i] ?? hi);
      if (leafDepth >= 0 && d !== leafDepth) throw new Error('unbalanced');
      leafDepth = d;
    });
    return leafDepth;
  };
  const depth = walk(root, 0, undefined, undefined);
  let count = 0;
  for (let i = 0; i < leaves.length; i++) {
    const leaf = leaves[i] as Leaf;
    count += leaf.keys.length;
    if (leaf.next !== leaves[i + 1]) throw new Error('leaf chain broken');
  }
  if (count !== size) throw new Error('size mismatch');
  return depth;
}
