/**
 * The stored form of a key: one JSON document per key (`KeyDocument`) holding
 * the configuration and the newest versions inline, and one JSON entry per
 * archived version. This is transitkit's own layout; the Vault backup format
 * is a separate codec.
 *
 * Binary fields are standard base64; asymmetric numbers are decimal strings
 * (each family's `materialToJson`/`materialFromJson`). Decoding validates every field and parses the
 * asymmetric material once, so a corrupted entry is reported as such instead
 * of surfacing as a TypeError, and the loaded key holds ready key objects.
 *
 * @module
 */
import { encodeBase64, fromUtf8, tryDecodeBase64, utf8 } from '../encoding.js';
import { internal } from '../errors.js';
import type { AsymmetricJson } from './asymmetric/material.js';
import { familyReady, type KeyTypeInfo, keyType, materialFamily } from './key-types.js';
import type { KeyPolicy, KeyVersion } from './policy.js';

/** A key as stored: configuration, incarnation id and the inline versions. @internal */
export interface KeyDocument {
  /** Random id of this incarnation of the name; archive entries live under it. */
  uid: string;
  policy: KeyPolicy;
  /** Inline (hot) versions by number. */
  versions: Map<number, KeyVersion>;
}

interface VersionJson extends AsymmetricJson {
  key: string;
  hmac_key: string;
  creation_time: number;
  time: string;
  convergent_version: number;
  /** Base64 DER certificates, end entity first. */
  certificate_chain?: string[];
}

const FORMAT = 1;

/** Encode one version. @internal */
export function versionToJson(v: KeyVersion): VersionJson {
  const out: VersionJson = {
    key: encodeBase64(v.key),
    hmac_key: encodeBase64(v.hmac_key),
    creation_time: v.creation_time,
    time: v.time,
    convergent_version: v.convergent_version,
  };
  if (v.asymmetric) Object.assign(out, materialFamily(v.asymmetric).materialToJson(v.asymmetric));
  if (v.certificate_chain) out.certificate_chain = v.certificate_chain.map(encodeBase64);
  return out;
}

function corrupt(what: string): never {
  throw internal(`stored key entry is corrupted: ${what}`);
}

function b64(v: unknown, what: string): Uint8Array {
  if (typeof v !== 'string') corrupt(what);
  const out = tryDecodeBase64(v);
  if (!out) corrupt(what);
  return out;
}

/** Decode one version of a key of type `info`. @internal */
export function versionFromJson(j: unknown, info: KeyTypeInfo): KeyVersion {
  if (typeof j !== 'object' || j === null) corrupt('version');
  const o = j as Record<string, unknown>;
  if (typeof o.creation_time !== 'number' || typeof o.time !== 'string') corrupt('version time');
  const key = b64(o.key, 'key');
  const asymmetric = info.family.materialFromJson(o, info, key);
  const chain = o.certificate_chain;
  if (chain !== undefined && !Array.isArray(chain)) corrupt('certificate_chain');
  return {
    key,
    hmac_key: b64(o.hmac_key, 'hmac_key'),
    creation_time: o.creation_time,
    time: o.time,
    convergent_version: typeof o.convergent_version === 'number' ? o.convergent_version : 0,
    ...(asymmetric ? { asymmetric } : {}),
    ...(chain ? { certificate_chain: chain.map((c) => b64(c, 'certificate_chain')) } : {}),
  };
}

/**
 * Serialise a key document: the text `JSON.stringify` gives for
 * `{ format, uid, policy, versions }` with `versions` keyed by version number.
 * The versions object is written piece by piece, in ascending order as
 * `JSON.stringify` orders integer keys: a plain object keyed by numbers past
 * ~1,000 is a sparse array to V8 (a hash table, sorted on every serialisation),
 * which made each write of a key with a thousand versions cost more.
 * @internal
 */
export function encodeDocument(doc: KeyDocument): Uint8Array {
  const numbers = [...doc.versions.keys()].sort((a, b) => a - b);
  let versions = '';
  for (const n of numbers) {
    const v = doc.versions.get(n) as KeyVersion;
    versions += `${versions === '' ? '' : ','}"${n}":${JSON.stringify(versionToJson(v))}`;
  }
  const head = JSON.stringify({ format: FORMAT, uid: doc.uid, policy: doc.policy });
  return utf8(`${head.slice(0, -1)},"versions":{${versions}}}`);
}

/** Parse a key document. @internal */
export function decodeDocument(bytes: Uint8Array): KeyDocument {
  return documentFromJson(parseDocument(bytes));
}

/**
 * Parse a stored key document, loading its type's family first when it is a
 * key pair whose family is not loaded yet (`familyReady`, issue 22).
 * @internal
 */
export async function decodeStoredDocument(bytes: Uint8Array): Promise<KeyDocument> {
  const parsed = parseDocument(bytes);
  const wait = familyReady(parsed.info);
  if (wait) await wait;
  return documentFromJson(parsed);
}

/** A key document's checked top level, its versions not decoded yet. */
interface ParsedDocument {
  readonly o: Record<string, unknown>;
  readonly uid: string;
  readonly policy: KeyPolicy;
  readonly info: KeyTypeInfo;
}

function parseDocument(bytes: Uint8Array): ParsedDocument {
  let j: unknown;
  try {
    j = JSON.parse(fromUtf8(bytes));
  } catch (e) {
    throw internal('stored key entry is not valid JSON', e);
  }
  if (typeof j !== 'object' || j === null) corrupt('document');
  const o = j as Record<string, unknown>;
  if (o.format !== FORMAT) corrupt(`unknown format ${String(o.format)}`);
  if (typeof o.uid !== 'string') corrupt('uid');
  const policy = o.policy as KeyPolicy;
  if (typeof policy !== 'object' || policy === null || typeof policy.name !== 'string') {
    corrupt('policy');
  }
  return { o, uid: o.uid as string, policy, info: keyType(policy.type) };
}

function documentFromJson({ o, uid, policy, info }: ParsedDocument): KeyDocument {
  const versions = new Map<number, KeyVersion>();
  const vs = o.versions;
  if (typeof vs !== 'object' || vs === null) corrupt('versions');
  for (const [k, v] of Object.entries(vs)) versions.set(Number(k), versionFromJson(v, info));
  return { uid, policy: { ...policy }, versions };
}

/** Serialise an archived version. @internal */
export const encodeVersion = (v: KeyVersion): Uint8Array => utf8(JSON.stringify(versionToJson(v)));

/** Parse an archived version of a key of type `info`. @internal */
export function decodeVersion(bytes: Uint8Array, info: KeyTypeInfo): KeyVersion {
  try {
    return versionFromJson(JSON.parse(fromUtf8(bytes)), info);
  } catch (e) {
    if (e instanceof SyntaxError) throw internal('stored key version is not valid JSON', e);
    throw e;
  }
}
