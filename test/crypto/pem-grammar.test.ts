/**
 * PEM framing (src/crypto/pki/pem.ts) read in one pass: the same blocks as
 * the regular expression of RFC 7468's grammar that `PemConverter` used (kept
 * here as the oracle, over lines without their trailing spaces and tabs), on
 * random texts made of PEM's pieces; and inputs on
 * which that expression backtracked for hours (RFC 1421 header lines that
 * read as continuation lines too; a line of repeated `-----BEGIN `) are read
 * at once: the test would hang, not fail, without the fix.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pemBlocks } from '../../src/crypto/pki/pem.js';
import { isTransitError } from '../../src/errors.js';

/** The expression pem.ts used, but for header keys starting with a space (continuation lines). */
const ORACLE =
  /-{5}BEGIN ([^\n]+(?=-{5}))-{5}\n((?:[^: \n][^:\n]*: (?:[^\n]+\n(?: +[^\n]+\n)*))+)?\n?((?:[a-zA-Z0-9=+/]+\n)+)-{5}END \1-{5}/g;

function oracle(text: string) {
  const out: { label: string; hasHeaders: boolean; body: string }[] = [];
  // Over lines without their trailing spaces and tabs (RFC 7468's `*WSP eol`).
  const trimmed = text
    .replace(/\r/g, '')
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n');
  for (const m of trimmed.matchAll(ORACLE)) {
    out.push({
      label: m[1] as string,
      hasHeaders: m[2] !== undefined,
      body: (m[3] as string).replace(/\n/g, ''),
    });
  }
  return out;
}

const LABELS = ['A', 'B', 'A: b'];
/** Lines of PEM's kinds, each joined to the next by `\n` (or `\r\n`). */
const LINE = fc.oneof(
  fc.constantFrom(...LABELS).map((l) => `-----BEGIN ${l}-----`),
  fc.constantFrom(...LABELS).map((l) => `x-----BEGIN ${l}-----`),
  fc.constantFrom(...LABELS).map((l) => `-----END ${l}-----`),
  fc.constantFrom(...LABELS).map((l) => `-----END ${l}-----x`),
  fc.constantFrom('A: b', 'Proc-Type: 4,ENCRYPTED', ' c: d', '  e', ''),
  fc.constantFrom('QUJD', 'QUJDRA==', 'QUJ', 'x', ' ', ':'),
);
/** What a line may end with before its end of line: nothing, mostly. */
const WSP = fc.constantFrom('', '', '', ' ', '\t', ' \t ');
const TEXT = fc
  .array(fc.tuple(LINE, WSP, fc.constantFrom('\n', '\n', '\r\n')), { maxLength: 24 })
  .map((lines) => lines.map(([l, wsp, end]) => l + wsp + end).join(''));

describe('pemBlocks', () => {
  it('finds the blocks the RFC 7468 expression finds', () => {
    fc.assert(
      fc.property(TEXT, (text) => {
        let want: ReturnType<typeof oracle> | 'error';
        let got: ReturnType<typeof oracle> | 'error';
        try {
          want = oracle(text);
          for (const b of want)
            if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b.body))
              want = 'error';
        } catch {
          want = 'error';
        }
        try {
          got = pemBlocks(text).map((b) => ({
            label: b.label,
            hasHeaders: b.hasHeaders,
            body: Buffer.from(b.der).toString('base64'),
          }));
        } catch (e) {
          if (!isTransitError(e, 'invalid_request')) throw e;
          got = 'error';
        }
        expect(got).toEqual(want);
      }),
      { numRuns: 50_000 },
    );
  });

  it('reads header-line and BEGIN-line bombs in one pass', () => {
    const headers = `-----BEGIN CERTIFICATE-----\nA: b\n${' c: d\n'.repeat(64)}!`;
    expect(pemBlocks(headers)).toEqual([]);
    expect(pemBlocks('-----BEGIN '.repeat(200_000))).toEqual([]);
    // Trailing spaces and tabs are trimmed in one pass, however long the run.
    expect(pemBlocks(`${' \t'.repeat(200_000)}x\n${' '.repeat(400_000)}`)).toEqual([]);
    const beginHeaders = '-----BEGIN A: b-----\n'.repeat(50_000);
    expect(pemBlocks(`${beginHeaders}QUJD\n-----END A: b-----`)).toHaveLength(1);
    // Each of those lines a BEGIN line too, before an empty body: no line retried from each.
    expect(pemBlocks(`-----BEGIN X-----\n${beginHeaders}\n-----END A: b-----\n`)).toEqual([]);
    expect(pemBlocks(`-----BEGIN X-----\n${beginHeaders}QUJD\n-----END A: b-----\n`)).toEqual([
      expect.objectContaining({ label: 'A: b', hasHeaders: true }),
    ]);
  });
});
