/**
 * `npm run bench*` measures the built package (`dist/`), as users run it —
 * not the sources through tsx, whose transform adds a `__name` call to every
 * closure created per call and so inflates the library's fixed costs. This
 * runs `npm run build` first when `dist/` is missing or older than any
 * source, build config or the package manifest.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const inputs = ['src', 'adapters', 'tsup.config.ts', 'scripts/entries.mjs', 'package.json'];

/** Newest modification time under `path` (a file or a directory tree). */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(path)) max = Math.max(max, newest(join(path, name)));
  return max;
}

const built = join(root, 'dist', 'index.js');
const sources = Math.max(
  ...inputs
    .map((p) => join(root, p))
    .filter(existsSync)
    .map(newest),
);
if (!existsSync(built) || statSync(built).mtimeMs < sources) {
  console.error('bench: dist/ is missing or older than the sources; building it first');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
