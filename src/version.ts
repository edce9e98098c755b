/**
 * The package version, from package.json (bundled in at build time), which
 * `sys/health` and `sys/seal-status` report unless told otherwise, so the CLI
 * and `createHandler` in an application agree. Neutral: imports nothing else.
 * @module
 */
import { version } from '../package.json';

/** The version of this transitkit package, e.g. `0.1.0`. @internal */
export const PACKAGE_VERSION: string = version;
