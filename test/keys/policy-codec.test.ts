/**
 * The key document's encoder (src/keys/policy-codec.ts) writes the versions
 * object piece by piece instead of through a plain object keyed by version
 * number (which V8 keeps as a hash table past ~1,000). Stored bytes are
 * compared to spot changes across instances, so the text must be exactly
 * what the former encoder wrote: checked here against it, kept as the
 * oracle, for real documents of every key family and for any version numbers
 * in any insertion order; and every document decodes back to itself.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromUtf8, utf8 } from '../../src/encoding.js';
import type { KeyVersion } from '../../src/keys/policy.js';
import {
  decodeDocument,
  encodeDocument,
  type KeyDocument,
  versionToJson,
} from '../../src/keys/policy-codec.js';
import { keyspace } from '../../src/storage/keyspace.js';
import { MemoryStorage } from '../../src/storage/memory.js';
import { Transit } from '../../src/transit/transit.js';

/** The encoder before the change: `JSON.stringify` of a plain object. */
function formerEncode(doc: KeyDocument): Uint8Array {
  const versions: Record<string, unknown> = {};
  for (const [n, v] of doc.versions) versions[String(n)] = versionToJson(v);
  return utf8(JSON.stringify({ format: 1, uid: doc.uid, policy: doc.policy, versions }));
}

async function storedDocuments(): Promise<KeyDocument[]> {
  const storage = new MemoryStorage();
  const t = new Transit({ storage, autoRotate: false });
  const kinds: [string, Record<string, unknown>][] = [
    ['aes', {}],
    ['derived', { derived: true, convergent_encryption: true }],
    ['chacha', { type: 'chacha20-poly1305', exportable: true }],
    ['hmac', { type: 'hmac', key_size: 48 }],
    ['ed', { type: 'ed25519' }],
    ['ec', { type: 'ecdsa-p256' }],
    ['rsa', { type: 'rsa-2048' }],
  ];
  const docs: KeyDocument[] = [];
  for (const [name, req] of kinds) {
    await t.createKey(name, req);
    await t.rotateKey(name);
    await t.updateKeyConfig(name, { deletion_allowed: true, min_decryption_version: 1 });
    const raw = await storage.get(keyspace.policy(name));
    if (!raw) throw new Error(`no document for ${name}`);
    expect(fromUtf8(encodeDocument(decodeDocument(raw)))).toBe(fromUtf8(raw));
    docs.push(decodeDocument(raw));
  }
  // A key past 1,024 versions (the numbers V8 stores sparsely), archived and all.
  await t.createKey('many');
  for (let i = 1; i < 1100; i++) await t.rotateKey('many');
  const raw = await storage.get(keyspace.policy('many'));
  if (!raw) throw new Error('no document for many');
  docs.push(decodeDocument(raw));
  await t.close();
  return docs;
}

describe('encodeDocument', () => {
  it('writes what the former encoder wrote, for every family and past 1,024 versions', async () => {
    const docs = await storedDocuments();
    for (const doc of docs) {
      const mine = encodeDocument(doc);
      expect(fromUtf8(mine), doc.policy.name).toBe(fromUtf8(formerEncode(doc)));
      expect(decodeDocument(mine)).toEqual(doc);
    }
    const many = docs.at(-1) as KeyDocument;
    expect(Math.min(...many.versions.keys())).toBeGreaterThan(1024);
  });

  it('orders any version numbers as JSON.stringify does, whatever the insertion order (property)', async () => {
    const [base] = await storedDocuments();
    const version = [...(base as KeyDocument).versions.values()][0] as KeyVersion;
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.oneof(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 2 ** 31 })),
          { maxLength: 20 },
        ),
        (numbers) => {
          const doc: KeyDocument = {
            uid: 'u',
            policy: (base as KeyDocument).policy,
            versions: new Map(numbers.map((n) => [n, version])),
          };
          expect(fromUtf8(encodeDocument(doc))).toBe(fromUtf8(formerEncode(doc)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
