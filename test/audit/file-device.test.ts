/**
 * The `file` device on real files: lines appended in order, the file's mode
 * (0600 by default, `mode`, `0000` leaves it), `discard`, a path that cannot
 * be opened, and `reopen` after a rotation (the CLI's SIGHUP).
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileAuditDevice } from '../../adapters/audit/index.js';
import { isTransitError } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'transitkit-audit-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modeOf = (p: string) => statSync(p).mode & 0o777;

describe('file audit device', () => {
  it('appends lines in order, 0600 by default; many writers at once stay whole lines', async () => {
    const path = join(dir, 'a.log');
    const d = await fileAuditDevice.create({ path: 'file/', options: { file_path: path } });
    await d.write('first\n');
    await Promise.all(Array.from({ length: 500 }, (_, i) => d.write(`line ${i}\n`)));
    await d.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[0]).toBe('first');
    expect(lines.slice(1, 501)).toEqual(Array.from({ length: 500 }, (_, i) => `line ${i}`));
    expect(modeOf(path)).toBe(0o600);
    await expect(d.write('after close\n')).rejects.toThrow('closed');
  });

  it('mode sets the mode of a new or existing file; 0000 leaves it alone', async () => {
    const path = join(dir, 'b.log');
    writeFileSync(path, '', { mode: 0o644 });
    const d = await fileAuditDevice.create({
      path: 'f/',
      options: { file_path: path, mode: '0640' },
    });
    await d.close();
    expect(modeOf(path)).toBe(0o640);
    const keep = join(dir, 'c.log');
    writeFileSync(keep, '', { mode: 0o604 });
    await (
      await fileAuditDevice.create({ path: 'f/', options: { file_path: keep, mode: '0000' } })
    ).close();
    expect(modeOf(keep)).toBe(0o604);
  });

  it('refuses a missing path, a bad mode, a directory that does not exist', async () => {
    const bad = async (options: Record<string, string>, text: string) => {
      const e = await fileAuditDevice.create({ path: 'f/', options }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect((e as Error).message).toContain(text);
      return e;
    };
    expect(isTransitError(await bad({}, 'file_path is required'), 'invalid_request')).toBe(true);
    await bad({ file_path: join(dir, 'x'), mode: 'rw' }, 'options.mode');
    await bad({ file_path: join(dir, 'x'), mode: '0755' }, 'must not make the file executable');
    await bad({ file_path: join(dir, 'x'), buffer_entries: '0' }, 'buffer_entries');
    await bad({ file_path: join(dir, 'no', 'such', 'dir', 'x.log') }, 'ENOENT');
  });

  it('buffer_entries bounds the lines waiting for the next write; past it, refused at once', async () => {
    const path = join(dir, 'full.log');
    const d = await fileAuditDevice.create({
      path: 'f/',
      options: { file_path: path, buffer_entries: '3' },
    });
    // Five entries in one event-loop turn: the first is written at once, three
    // wait for the turn's end, the fifth is refused.
    const lines = ['a\n', 'b\n', 'c\n', 'd\n', 'e\n'];
    const results = await Promise.allSettled(lines.map((l) => d.write(l)));
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect(String((results[4] as PromiseRejectedResult).reason)).toContain('audit buffer full');
    await d.write('f\n'); // room again after the write
    await d.close();
    expect(readFileSync(path, 'utf8')).toBe('a\nb\nc\nd\nf\n');
  });

  it('discard records every entry and writes nothing', async () => {
    const d = await fileAuditDevice.create({ path: 'f/', options: { file_path: 'discard' } });
    await d.write('x\n');
    await d.close();
  });

  it('reopen starts a new file after a rotation; nothing is lost', async () => {
    const path = join(dir, 'rot.log');
    const d = await fileAuditDevice.create({ path: 'f/', options: { file_path: path } });
    await d.write('before\n');
    renameSync(path, `${path}.1`);
    await d.write('still old\n'); // the open file is the renamed one
    await d.reopen?.();
    await d.write('after\n');
    await d.close();
    expect(readFileSync(`${path}.1`, 'utf8')).toBe('before\nstill old\n');
    expect(readFileSync(path, 'utf8')).toBe('after\n');
  });
});
