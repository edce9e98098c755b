/**
 * `transitkit/http` is runtime-neutral (design.md "Layers"; style.md convention 8): its
 * entry bundles for a browser or an edge runtime with no Node builtin anywhere in the
 * graph — only `transitkit/http/node` (the LIST-capable server) uses `node:*`. And the
 * token store does not drag a whole crypto backend (RSA, PKI) into that bundle.
 */
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const builtins = new Set(builtinModules);

async function bundle(entry: string) {
  const found: string[] = [];
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    minify: true,
    logLevel: 'silent',
    external: ['transitkit'],
    alias: { '#default-backend': './src/crypto/noble/index.ts' },
    plugins: [
      {
        name: 'node-builtins',
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) => {
            if (args.path.startsWith('node:') || builtins.has(args.path)) {
              found.push(`${args.path} (from ${args.importer})`);
              return { path: args.path, external: true };
            }
            return undefined;
          });
        },
      },
    ],
  });
  const output = Object.values(result.metafile.outputs)[0];
  return { found, bytes: output?.bytes ?? 0, inputs: Object.keys(output?.inputs ?? {}) };
}

describe('transitkit/http for browsers and edge runtimes', () => {
  it('bundles with no Node builtin', async () => {
    const { found } = await bundle('adapters/http/index.ts');
    expect(found).toEqual([]);
  });

  it('stays small: no crypto backend, no PKI', async () => {
    const { bytes, inputs } = await bundle('adapters/http/index.ts');
    expect(inputs.filter((i) => /pkijs|asn1js|crypto\/(node|noble)\//.test(i))).toEqual([]);
    expect(bytes).toBeLessThan(120 * 1024);
  });

  it('the node server entry is the one that uses node:*', async () => {
    const { found } = await bundle('adapters/http/node-server.ts');
    expect(found.some((f) => f.startsWith('node:http'))).toBe(true);
  });
});
