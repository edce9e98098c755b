/**
 * The time profiles of `bench:call-time` and `bench:stream-http --perf`
 * (bench/perf-sample.ts): `perf report`'s lines read as functions, and each
 * function put in the category docs/performance.md's tables name. A report
 * format or a category rule that drifted would move time between the
 * tables' lines without anyone noticing.
 */
import { describe, expect, it } from 'vitest';
import {
  byCategory,
  categoryOf,
  categoryRows,
  parseReport,
  samplesOf,
} from '../../bench/perf-sample.js';

const REPORT = `
# comment lines and blank ones are skipped

    12.50%           250  node                 [.] node::BaseObject::BaseObject
     5.00%           100  [JIT] tid 4242       [.] JS:*openWith file:///app/node_modules/transitkit/dist/chunk.js:221:18
     4.00%            80  [JIT] tid 4242       [.] JS:*createCipherWithIV node:internal/crypto/cipher:135:28
     3.00%            60  node                 [.] Builtins_CreateTypedArray
     2.50%            50  node                 [.] _aesni_ctr32_ghash_6x
     2.00%            40  libc.so.6            [.] _int_malloc
     1.50%            30  node                 [.] v8::internal::ConcurrentMarking::RunMajor
     1.00%            20  node                 [.] v8::internal::compiler::GraphReducer::ReduceTop
     0.50%            10  [kernel.kallsyms]    [k] _raw_spin_unlock_irqrestore
     0.25%             5  [vdso]               [.] __vdso_gettimeofday
`;

describe('perf-sample', () => {
  it('reads every function line with its samples and binary, JIT threads under one name', () => {
    const fns = parseReport(REPORT);
    expect(fns).toHaveLength(10);
    expect(fns[0]).toEqual({ samples: 250, dso: 'node', sym: 'node::BaseObject::BaseObject' });
    expect(fns[1]).toEqual({
      samples: 100,
      dso: '[JIT]',
      sym: 'JS:*openWith file:///app/node_modules/transitkit/dist/chunk.js:221:18',
    });
    expect(fns[8]).toMatchObject({ dso: '[kernel.kallsyms]', samples: 10 });
  });

  it('puts each function in its category', () => {
    const [cpp, own, nodeJs, builtin, openssl, libc, gc, compiler, kernel, vdso] =
      parseReport(REPORT).map(categoryOf);
    expect(own).toBe('JS of the code measured (transitkit, a floor, a raw call, a bare server)');
    expect(nodeJs).toBe("JS of Node's own modules (node:crypto, node:buffer…)");
    expect(builtin).toBe('V8 builtins and runtime');
    expect(cpp).toBe('Node C++ (crypto bindings, BaseObject, simdutf…)');
    expect(openssl).toBe('OpenSSL');
    expect(libc).toBe('libc (malloc, free, memcpy, strcmp…)');
    expect(gc).toBe('garbage collector');
    expect(compiler).toBe('optimising compiler');
    expect(kernel).toBe('kernel');
    expect(vdso).toBe('other');
  });

  it('adds the samples up by category, every category present', () => {
    const cats = byCategory(parseReport(REPORT));
    expect([...cats.values()].reduce((a, b) => a + b, 0)).toBe(645);
    expect(cats.get('OpenSSL')).toBe(50);
    expect(cats.get('garbage collector')).toBe(30);
    expect(cats.size).toBe(10);
  });

  it("prints a row per category with samples, scaled, in the categories' order", () => {
    const fns = parseReport(REPORT).filter((f) => f.dso !== '[kernel.kallsyms]');
    expect(samplesOf(fns)).toBe(635);
    const rows = categoryRows('g', fns, 0.5, 'µs');
    expect(rows.map((r) => r.name.trim())).not.toContain('kernel');
    expect(rows[0]).toEqual({
      group: 'g',
      name: '  JS of the code measured (transitkit, a floor, a raw call, a bare server)',
      value: 50,
      unit: 'µs',
    });
    expect(rows.find((r) => r.name.trim() === 'OpenSSL')?.value).toBe(25);
  });
});
