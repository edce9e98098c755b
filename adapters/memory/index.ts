/**
 * Temporary forwarder while adapters/postgres still imports the storage kit from
 * here; the kit lives in `src/storage/kit.ts` and the memory adapter in
 * `src/storage/memory.ts`. Removed once that import moves.
 * @module
 */
export { checkBytes, checkKey, checkListArgs, copyBytes } from '../../src/storage/kit.js';
