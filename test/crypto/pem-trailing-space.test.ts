/**
 * A `public_key` PEM whose lines carry trailing
 * spaces or tabs (what a copy from a terminal, a YAML block or a web form
 * often gives) was refused with "no PEM block found". RFC 7468 §3's *strict*
 * grammar allows `*WSP` before every end of line (`preeb *WSP eol`,
 * `base64line = 1*base64char *WSP eol`, `posteb *WSP [eol]`), Go's
 * `pem.Decode` (Vault's import: `pem.Decode` then `x509.ParsePKIXPublicKey`)
 * trims them (`getLine`: `bytes.TrimRight(line, " \t")`,
 * `removeSpacesAndTabs`), and OpenSSL and Python's `cryptography` load the
 * same text (checked below with the openssl CLI).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transit } from 'transitkit';
import { describe, expect, it } from 'vitest';
import { nobleBackend } from '../../src/crypto/noble/index.js';
import { nodeBackend } from '../../src/crypto/node/index.js';
import { decodePublicKeyPem } from '../../src/crypto/pki/keys.js';

const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
  format: 'pem',
  type: 'spki',
}) as string;
const trailingSpaces = pem.replace(/\n/g, '  \n');
const trailingTabs = pem.replace(/\n/g, '\t\n');

describe('PEM with trailing whitespace on its lines (RFC 7468 *WSP eol)', () => {
  it('control: openssl reads it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zz-pem-'));
    writeFileSync(join(dir, 'pub.pem'), trailingSpaces);
    const out = execFileSync('openssl', ['pkey', '-pubin', '-in', join(dir, 'pub.pem'), '-pubout']);
    expect(out.toString()).toBe(pem);
  });

  it('decodePublicKeyPem reads it as the same key', () => {
    const want = decodePublicKeyPem(pem);
    expect(decodePublicKeyPem(trailingSpaces)).toEqual(want);
    expect(decodePublicKeyPem(trailingTabs)).toEqual(want);
  });

  for (const [name, backend] of [
    ['node', nodeBackend],
    ['noble', nobleBackend],
  ] as const) {
    it(`importKey public_key accepts it (${name})`, async () => {
      const t = new Transit({ crypto: backend, autoRotate: false });
      await t.importKey('pub', { type: 'ecdsa-p256', public_key: trailingSpaces });
      const { keys } = await t.exportKey('public-key', 'pub', 1, { format: 'pem' });
      expect(`${keys['1']}\n`).toBe(pem);
    });
  }
});
