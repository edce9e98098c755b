/**
 * Helpers shared by the asymmetric families: narrowing a version's material
 * (or an imported neutral key) to the family's kind, the hashing rule of signatures (`{ message }` unless
 * the caller prehashed), and the export-format refusals (reference §8, OpenBao
 * texts).
 * @module
 */
import type { SignedData } from '../../crypto/asymmetric-backend.js';
import type { PrivateKeyMaterial } from '../../crypto/pki/pkcs8.js';
import type { PublicKeyMaterial } from '../../crypto/pki/spki.js';
import { internal, invalidRequest } from '../../errors.js';
import type { ExportFormat } from '../families/family.js';
import type { AsymmetricMaterial } from './material.js';

/**
 * The material as the family's kind.
 * @throws TransitError `internal` on a mismatch (a corrupted or mis-typed key).
 * @internal
 */
export function materialOf<K extends AsymmetricMaterial['kind']>(
  m: AsymmetricMaterial,
  kind: K,
): Extract<AsymmetricMaterial, { kind: K }> {
  if (m.kind !== kind) throw internal(`expected ${kind} key material`);
  return m as Extract<AsymmetricMaterial, { kind: K }>;
}

/**
 * The key of an imported neutral key of the family's `pkixType` (checked by
 * `defineAsymmetricFamily` before the family sees it).
 * @throws TransitError `internal` on a mismatch.
 * @internal
 */
export function keyOf<
  M extends PublicKeyMaterial | PrivateKeyMaterial,
  T extends PublicKeyMaterial['type'],
>(m: M, type: T): Extract<M, { type: T }>['key'] {
  if (m.type !== type) throw internal(`expected ${type} key`);
  return m.key as Extract<M, { type: T }>['key'];
}

/** What is signed: the message (hashed by the backend) or the caller's digest. @internal */
export const signedData = (input: Uint8Array, prehashed: boolean): SignedData =>
  prehashed ? { digest: input } : { message: input };

/** Refuse `format=raw` for a family without a raw form (OpenBao's text). @internal */
export function refuseRaw(format: ExportFormat, family: 'ec' | 'rsa'): void {
  if (format === 'raw') {
    throw invalidRequest(
      `unknown key format for ${family} key; supported values are \`\`, \`der\`, or \`pem\``,
    );
  }
}

/** Vault trims some PEM exports of their trailing newline (§8). @internal */
export const trimPem = (pem: string): string => pem.trim();
