/**
 * The read body (read, rotate, config, trim) and the data calls read a key's
 * archived versions after its document; another instance's trim or delete in
 * between used to fail them with `internal` ("archived version N of key k is
 * missing from storage"): a 500 for a key that exists, and for rotate a
 * failure reported after the new version was committed (a client that retried
 * rotated twice). Now each answers from the key as it then is.
 */
import { describe, expect, it } from 'vitest';
import { racingInstances } from '../helpers/holding-view.js';

const setup = () => racingInstances(); // versions 1..4 archived (by b)

describe('read body racing a trim on another instance', () => {
  it('readKey answers the key (as trimmed), not internal', async () => {
    const { a, b, view } = await setup();
    view.armed = true;
    const read = a.readKey('k');
    await view.held(); // a has read the document (min_decryption_version 1), now reads archived v1
    await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    await b.trimKey('k', { min_available_version: 10 });
    view.release();
    const info = await read;
    expect(info.latest_version).toBe(20);
  });

  it('readKey of a key deleted meanwhile answers not_found, not internal', async () => {
    const { a, b, view } = await setup();
    await b.updateKeyConfig('k', { deletion_allowed: true });
    view.armed = true;
    const read = a.readKey('k').then(
      () => 'read',
      (e: { code?: string }) => e.code,
    );
    await view.held();
    await b.deleteKey('k');
    view.release();
    expect(await read).toBe('not_found');
  });

  it('a rotate that committed is not reported as failed', async () => {
    const { a, b, view } = await setup();
    await a.encrypt('k', { plaintext: 'eA==' }); // a loads the key (document only)
    view.armed = true;
    const rotate = a.rotateKey('k').then(
      (info) => `ok v${info.latest_version}`,
      (e: Error) => `failed: ${e.message}`,
    );
    await view.held(); // the rotate committed; its read body now reads archived versions
    expect((await b.readKey('k')).latest_version).toBe(21);
    await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    await b.trimKey('k', { min_available_version: 10 });
    view.release();
    expect(await rotate).toBe('ok v21');
  });

  it('decrypt of a version trimmed meanwhile is refused as too old, not internal', async () => {
    const { a, b, view } = await setup();
    const { ciphertext } = await b.encrypt('k', { plaintext: 'eA==', key_version: 1 });
    view.armed = true;
    const dec = a.decrypt('k', { ciphertext }).then(
      () => 'decrypted',
      (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
    );
    await view.held(); // a read the document (v1 allowed) and now reads archived v1
    await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    await b.trimKey('k', { min_available_version: 10 });
    view.release();
    expect(await dec).toBe(
      'invalid_request: ciphertext or signature version is disallowed by policy (too old)',
    );
  });

  it('a batch decrypt runs again as a whole: the item is too old, not an internal error', async () => {
    const { a, b, view } = await setup();
    const { ciphertext } = await b.encrypt('k', { plaintext: 'eA==', key_version: 1 });
    const fresh = await b.encrypt('k', { plaintext: 'eQ==' });
    view.armed = true;
    const dec = a.decrypt('k', { batch_input: [{ ciphertext }, { ciphertext: fresh.ciphertext }] });
    await view.held();
    await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    await b.trimKey('k', { min_available_version: 10 });
    view.release();
    const { batch_results } = await dec;
    expect(batch_results[0]?.error).toBe(
      'ciphertext or signature version is disallowed by policy (too old)',
    );
    expect(batch_results[1]?.plaintext).toBe('eQ==');
  });

  it('an HMAC with a version trimmed meanwhile is refused by the policy, not internal', async () => {
    const { a, b, view } = await setup();
    view.armed = true;
    const mac = a.hmac('k', { input: 'eA==', key_version: 2 }).then(
      () => 'made',
      (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
    );
    await view.held();
    await b.updateKeyConfig('k', { min_decryption_version: 10, min_encryption_version: 10 });
    await b.trimKey('k', { min_available_version: 10 });
    view.release();
    expect(await mac).toBe(
      'invalid_request: cannot generate HMAC: version is too old (disallowed by policy)',
    );
  });

  it('the same document with an archived entry missing is still a fault (no endless retry)', async () => {
    const { a, view } = await setup();
    const entry = (await view.inner.list('transit/archive/')).find((k) => k.endsWith('01'));
    expect(entry).toBeDefined();
    await view.inner.delete(`transit/archive/${entry}`);
    const read = a.readKey('k').then(
      () => 'read',
      (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
    );
    expect(await read).toMatch(/^internal: archived version 1 of key k is missing from storage/);
  });
});
