/**
 * The independent checkers the suite drives as real programs, found once per
 * test file. Each optional one is skipped only outside CI, with its reason in
 * the test name; in CI (`CI` set) a missing tool fails the tests instead, so a
 * green CI run never hides a checker that did not run. The Redis server has its
 * own helper (`redis-server.ts`); `openssl` is required everywhere (every
 * Debian, macOS and CI image has it).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';

/** A python3 that can `import hvac` (Debian's python3-hvac), or `undefined`. */
export const HVAC_PYTHON: string | undefined = ['/usr/bin/python3', 'python3'].find(
  (py) => spawnSync(py, ['-c', 'import hvac'], { stdio: 'ignore' }).status === 0,
);

/** Skip the hvac client tests: only without python3-hvac and outside CI. */
export const SKIP_HVAC: boolean = HVAC_PYTHON === undefined && !process.env.CI;

/** Shown in the name of the skipped placeholder test. */
export const NO_HVAC_REASON =
  'no python3 with hvac: install it (Debian: apt-get install python3-hvac) to run the Vault-client tests';

/** The hvac python, for a test that runs only when {@link SKIP_HVAC} is false. */
export function pythonWithHvac(): string {
  if (HVAC_PYTHON === undefined) {
    throw new Error(`${NO_HVAC_REASON} (.ci/run installs it; CI never skips it)`);
  }
  return HVAC_PYTHON;
}
