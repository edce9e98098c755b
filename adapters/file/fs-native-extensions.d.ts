/**
 * The part of `fs-native-extensions` (no bundled types) that file-lock.ts uses.
 * @module
 */
declare module 'fs-native-extensions' {
  /**
   * Take a non-blocking lock on the open file `fd` (exclusive unless
   * `shared`): an open-file-description lock on Linux, `flock` on macOS,
   * `LockFileEx` on Windows. False when another holder has it.
   */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
}
