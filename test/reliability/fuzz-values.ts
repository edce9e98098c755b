/**
 * Value generators for the HTTP fuzzer (`http-arbitraries.ts`): path
 * segments, field values by type and by name (valid and bad base64, pooled
 * server values, DER-shaped bytes, huge numbers, unicode), batch items with
 * nested batches, and whole objects for a row's field schema.
 */
import fc from 'fast-check';
import type { Fields, FieldType } from '../../adapters/http/route.js';

/** A value taken at send time from the pool of values the server returned. */
export class PoolRef {
  constructor(readonly index: number) {}
}

/** The keys the fuzzer works on; `fz-new` and `fz-tmp` do not exist at the start. */
export const KEY_NAMES = [
  'fz-aes',
  'fz-derived',
  'fz-chacha',
  'fz-ed',
  'fz-ec',
  'fz-rsa',
  'fz-hmac',
  'fz-new',
  'fz-tmp',
] as const;

const b64 = (u: Uint8Array): string => Buffer.from(u).toString('base64');

/** Odd path segments, already in request-line form (percent-encoded where needed). */
const ODD_SEGMENT = fc.constantFrom(
  '..',
  '.',
  '%2e%2e',
  '%ZZ',
  '%',
  '%00',
  '%FF',
  'a%2Fb',
  '%2F',
  ';',
  '~',
  'x'.repeat(129),
  'x'.repeat(4000),
  '-lead',
  'trail-',
  'a..b',
  '%E2%80%AE',
  '%F0%9F%94%91',
  'CON',
  'latest',
  '0',
  '-1',
  '99999999999999999999',
);

export const SEGMENT: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KEY_NAMES) },
  { weight: 2, arbitrary: ODD_SEGMENT },
  { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: 'binary' }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/) },
);

/** Values known to mean something to some route parameter. */
export const PARAM_WORDS = fc.constantFrom(
  'plaintext',
  'wrapped',
  'encryption-key',
  'signing-key',
  'hmac-key',
  'public-key',
  'latest',
  '1',
  '2',
  'sha2-256',
  'sha2-512',
  'sha3-256',
  'sha1',
  'none',
  'platform',
  'all',
  '32',
  '512',
  'auth',
  'auth/token/create',
);

/** A universal ASN.1 tag (times, SEQUENCE, INTEGER, OID, …), a length and random content. */
const DER_SHAPED = fc
  .tuple(
    fc.constantFrom(0x02, 0x03, 0x04, 0x05, 0x06, 0x0c, 0x13, 0x17, 0x18, 0x30, 0x31, 0xa0),
    fc.uint8Array({ maxLength: 60 }),
  )
  .map(([tag, u]) => Uint8Array.of(tag, u.length, ...u));
const PEM_LABEL: Readonly<Record<string, string>> = {
  csr: 'CERTIFICATE REQUEST',
  certificate_chain: 'CERTIFICATE',
  public_key: 'PUBLIC KEY',
};

/** Standard base64 of random bytes (a valid binary field). */
const GOOD_B64 = fc.uint8Array({ maxLength: 80 }).map(b64);
const BAD_B64 = fc.constantFrom('@@@@', 'aGk', 'a', '====', 'aGk=aGk=', 'a b c', '-_-_', '%%');
const HUGE = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 31),
  2 ** 32,
  1.5,
  -0,
  Number.MAX_SAFE_INTEGER,
);
export const ANY_STRING = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ maxLength: 40, unit: 'grapheme' }),
  fc.string({ maxLength: 20, unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', 'true', 'null', '1h', '-5m', '0', 'x'.repeat(2000)),
);
/** Anything JSON can carry, shallow. */
const JSON_LEAF: fc.Arbitrary<unknown> = fc.oneof(
  ANY_STRING,
  fc.integer(),
  HUGE,
  fc.boolean(),
  fc.constant(null),
);
const JSON_ANY: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: JSON_LEAF },
  { weight: 1, arbitrary: fc.array(JSON_LEAF, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), JSON_LEAF, { maxKeys: 3 }) },
);

/** A value for a field of a given type: mostly plausible, often wrong. */
function fieldValue(name: string, type: FieldType): fc.Arbitrary<unknown> {
  const plausible: fc.Arbitrary<unknown> = (() => {
    switch (type) {
      case 'int':
        return fc.oneof(fc.integer({ min: -3, max: 12 }), fc.constantFrom('1', '2', '0', 128, 256));
      case 'bool':
        return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', '1', '0', 't', 'maybe'));
      case 'duration':
        return fc.constantFrom('1h', '2h', 0, 3600, '30m', '0', '768h', '1y', 'forever');
      case 'strings':
        return fc.oneof(fc.array(fc.constantFrom('default', 'root', 'p1'), { maxLength: 3 }));
      case 'map':
        return fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), {
          maxKeys: 3,
        });
      case 'array':
        return batchArb;
      default:
        return stringFieldValue(name);
    }
  })();
  return fc.oneof({ weight: 4, arbitrary: plausible }, { weight: 1, arbitrary: JSON_ANY });
}

/** Values for string fields, by name: valid base64, pooled values, known words, garbage. */
function stringFieldValue(name: string): fc.Arbitrary<unknown> {
  const pool = fc.nat(1000).map((i) => new PoolRef(i));
  switch (name) {
    case 'plaintext':
    case 'input':
    case 'context':
    case 'associated_data':
    case 'nonce':
      return fc.oneof(
        { weight: 5, arbitrary: GOOD_B64 },
        { weight: 1, arbitrary: BAD_B64 },
        { weight: 1, arbitrary: ANY_STRING },
        { weight: 1, arbitrary: fc.uint8Array({ minLength: 12, maxLength: 12 }).map(b64) },
      );
    case 'ciphertext':
    case 'signature':
    case 'hmac':
    case 'backup':
    case 'token':
    case 'lease_id':
      return fc.oneof(
        { weight: 4, arbitrary: pool },
        { weight: 1, arbitrary: GOOD_B64.map((s) => `vault:v1:${s}`) },
        { weight: 1, arbitrary: DER_SHAPED.map((d) => `vault:v1:${b64(d)}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'vault:v0:AAAA',
            'vault:v-1:AAAA',
            'vault:v99999999999999999999:AAAA',
            'vault:v1:',
            'vault:v1:@@@',
            'vault:',
            'vault:vx:AAAA',
            'other:v1:AAAA',
          ),
        },
        { weight: 1, arbitrary: ANY_STRING },
      );
    case 'csr':
    case 'certificate_chain':
    case 'public_key':
      return fc.oneof(
        DER_SHAPED.map(
          (d) =>
            `-----BEGIN ${PEM_LABEL[name]}-----\n${b64(d)}\n-----END ${PEM_LABEL[name]}-----\n`,
        ),
        ANY_STRING,
      );
    case 'type':
      return fc.oneof(
        fc.constantFrom(
          'aes256-gcm96',
          'aes128-gcm96',
          'chacha20-poly1305',
          'xchacha20-poly1305',
          'ed25519',
          'ecdsa-p256',
          'hmac',
          'rsa-2048',
          'irrevocable',
          'AES256-GCM96',
        ),
        ANY_STRING,
      );
    case 'hash_algorithm':
    case 'algorithm':
      return fc.oneof(PARAM_WORDS, ANY_STRING);
    case 'format':
      return fc.constantFrom('hex', 'base64', 'raw', 'der', 'pem', 'HEX', '');
    case 'signature_algorithm':
      return fc.constantFrom('pss', 'pkcs1v15', 'x');
    case 'marshaling_algorithm':
      return fc.constantFrom('asn1', 'jws', 'x');
    case 'salt_length':
      return fc.constantFrom('auto', 'hash', '20', '-1', '999999', 'x');
    case 'version':
      return fc.constantFrom('latest', '1', '0', '2', 'x');
    case 'policy':
    case 'rules':
      return fc.constantFrom(
        'path "transit/*" { capabilities = ["read"] }',
        '{"path": {"transit/*": {"capabilities": ["update"]}}}',
        'path "x" {',
        '',
      );
    case 'name':
      return SEGMENT.map((s) => decodeURIComponentSafe(s));
    default:
      return ANY_STRING;
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** One batch item: the item fields of every batch route, mixed. */
const ITEM_FIELDS: Fields = {
  plaintext: 'string',
  ciphertext: 'string',
  input: 'string',
  context: 'string',
  signature: 'string',
  hmac: 'string',
  reference: 'string',
  nonce: 'string',
  key_version: 'int',
};
const itemArb: fc.Arbitrary<unknown> = fc.letrec<{ item: unknown; batch: unknown }>((tie) => ({
  item: fc.oneof(
    { weight: 8, arbitrary: objectOf(ITEM_FIELDS) },
    { weight: 1, arbitrary: JSON_LEAF },
    // A nested batch inside an item.
    {
      weight: 1,
      arbitrary: fc.record({ batch_input: tie('batch'), plaintext: GOOD_B64 }),
    },
  ),
  batch: fc.array(tie('item'), { maxLength: 3, depthIdentifier: 'batch' }),
})).item;
const batchArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.array(itemArb, { minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constant([]) },
  // More items than a small server limit allows (the fuzz server sets maxBatchSize).
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 200 }).map((n) => Array(n).fill({})) },
  { weight: 1, arbitrary: JSON_LEAF },
);

/** An object with some of `fields`, plausible or wrong values, and sometimes unknown fields. */
export function objectOf(fields: Fields): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(fields);
  const rec: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, type] of entries) rec[name] = fieldValue(name, type);
  return fc
    .tuple(
      entries.length > 0 ? fc.record(rec, { requiredKeys: [] }) : fc.constant({}),
      fc.dictionary(fc.string({ maxLength: 10 }), JSON_LEAF, { maxKeys: 2 }),
      fc.boolean(),
    )
    .map(([known, extra, withExtra]) => (withExtra ? { ...extra, ...known } : known));
}
