/**
 * The dual package hazard (issue 22 item 9): a TransitError thrown by one copy
 * of transitkit (the CommonJS build, or another copy in node_modules) must
 * satisfy `isTransitError` and `instanceof TransitError` of another copy (the
 * ESM build). Two independent bundles of `src/index.ts` (one CJS, one ESM, each
 * with its own TransitError class) stand for the two builds here, before any
 * `npm run build`; `scripts/check-exports.mjs` repeats the cross-check on the
 * built `dist/index.cjs` and `dist/index.js`.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/vectors.js';

type Module = typeof import('../../src/index.js');

const dir = path.join(REPO_ROOT, 'temp', `dual-package-${process.pid}`);
let cjs: Module;
let esm: Module;

/** Bundle src/index.ts alone (dependencies external, the node backend inlined). */
async function bundle(format: 'cjs' | 'esm', file: string): Promise<string> {
  const outfile = path.join(dir, file);
  await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: ['src/index.ts'],
    bundle: true,
    platform: 'node',
    format,
    target: 'node20',
    outfile,
    packages: 'external',
    logLevel: 'silent',
    plugins: [
      {
        name: 'default-backend',
        setup(b) {
          b.onResolve({ filter: /^#default-backend$/ }, () => ({
            path: path.join(REPO_ROOT, 'src/crypto/node/index.ts'),
          }));
        },
      },
    ],
  });
  return outfile;
}

/** The error a real operation of `m` throws (a missing key). */
async function thrownBy(m: Module): Promise<unknown> {
  const transit = new m.Transit();
  try {
    await transit.decrypt('missing', { ciphertext: 'vault:v1:AAAA' });
  } catch (e) {
    return e;
  } finally {
    await transit.close();
  }
  throw new Error('decrypt of a missing key did not throw');
}

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  const [cjsFile, esmFile] = await Promise.all([
    bundle('cjs', 'index.cjs'),
    bundle('esm', 'index.mjs'),
  ]);
  cjs = createRequire(import.meta.url)(cjsFile) as Module;
  esm = (await import(pathToFileURL(esmFile).href)) as Module;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('TransitError across builds (dual package hazard)', () => {
  it('the two builds really have two distinct TransitError classes', () => {
    expect(cjs.TransitError).not.toBe(esm.TransitError);
    expect(Object.getPrototypeOf(new cjs.TransitError('internal', 'x'))).not.toBe(
      esm.TransitError.prototype,
    );
  });

  it('an error thrown by the CJS build passes the ESM guard and instanceof, and back', async () => {
    for (const [from, to] of [
      [cjs, esm],
      [esm, cjs],
    ] as const) {
      const err = await thrownBy(from);
      expect(to.isTransitError(err)).toBe(true);
      expect(to.isTransitError(err, (err as { code: never }).code)).toBe(true);
      expect(to.isTransitError(err, 'sealed')).toBe(false);
      expect(err instanceof to.TransitError).toBe(true);
      expect(err instanceof Error).toBe(true);
      expect(err instanceof from.TransitError).toBe(true);
    }
  });

  it('errors constructed by either build are recognised by both', () => {
    const a = new cjs.TransitError('not_found', 'gone');
    const b = new esm.TransitError('conflict', 'raced');
    expect(esm.isTransitError(a, 'not_found')).toBe(true);
    expect(cjs.isTransitError(b, 'conflict')).toBe(true);
    expect(a instanceof esm.TransitError && b instanceof cjs.TransitError).toBe(true);
  });

  it('look-alikes are not TransitErrors', () => {
    const fakes: unknown[] = [
      new Error('x'),
      Object.assign(new Error('x'), { name: 'TransitError', code: 'internal' }),
      { name: 'TransitError', code: 'internal', message: 'x' },
      { [Symbol('transitkit.TransitError')]: true },
      null,
      undefined,
      'TransitError',
      42,
    ];
    for (const m of [cjs, esm]) {
      for (const fake of fakes) {
        expect(m.isTransitError(fake)).toBe(false);
        expect(fake instanceof m.TransitError).toBe(false);
      }
    }
  });

  it('the brand is invisible: not an own property, not in JSON or keys', () => {
    const err = new esm.TransitError('invalid_request', 'bad');
    expect(Object.getOwnPropertySymbols(err)).toEqual([]);
    expect(Object.keys(err)).toEqual(['code', 'name']);
    expect(JSON.stringify({ ...err })).toBe('{"code":"invalid_request","name":"TransitError"}');
  });

  it('a subclass keeps the ordinary prototype check', () => {
    class Sub extends esm.TransitError {}
    const sub = new Sub('internal', 'x');
    expect(sub instanceof Sub).toBe(true);
    expect(sub instanceof esm.TransitError).toBe(true);
    expect(cjs.isTransitError(sub)).toBe(true);
    expect(new esm.TransitError('internal', 'x') instanceof Sub).toBe(false);
  });
});
