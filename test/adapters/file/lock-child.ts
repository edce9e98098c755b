/**
 * A second process for lock.test.ts: opens the FileStorage directory given as
 * argument, writes `from-child`, prints `ready`, then writes `beat` (a counter)
 * every 50 ms until killed. If the open fails it prints
 * `error <code>: <message>` and exits 3.
 *
 * Usage: `node --import tsx lock-child.ts DIR` (possibly under
 * `unshare --pid --fork --mount-proc`, where it is pid 1).
 */
import { FileStorage } from '../../../adapters/file/index.js';

const te = new TextEncoder();
try {
  const s = await FileStorage.open(process.argv[2] as string);
  await s.put('from-child', te.encode(`written by pid ${process.pid}`));
  process.stdout.write('ready\n');
  let beat = 0;
  setInterval(() => {
    beat++;
    s.put('beat', te.encode(String(beat))).catch((e: unknown) => {
      process.stdout.write(`write failed: ${String(e)}\n`);
    });
  }, 50);
} catch (e) {
  const err = e as { code?: string; message?: string };
  process.stdout.write(`error ${err.code}: ${err.message}\n`);
  process.exit(3);
}
