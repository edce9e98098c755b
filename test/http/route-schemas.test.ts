/**
 * One schema per endpoint (issue 23, part 3): every route row takes its fields
 * from an endpoint schema (src/schema.ts); a transit row's schema is the one
 * its endpoint module exports and the library checks requests with; every
 * field has a description; and a schema cannot drift from its library
 * request type (checked by the compiler: the `@ts-expect-error` lines below
 * fail `tsc` when a drift stops being an error).
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../adapters/http/routes.js';
import { SEAL_ROUTES } from '../../adapters/http/seal-routes.js';
import { type EndpointSchema, isEndpointSchema, NO_FIELDS, schemaFor } from '../../src/schema.js';
import * as backup from '../../src/transit/backup.js';
import * as byok from '../../src/transit/byok.js';
import * as certificates from '../../src/transit/certificates.js';
import * as config from '../../src/transit/config.js';
import * as datakey from '../../src/transit/datakey.js';
import * as encrypt from '../../src/transit/encrypt.js';
import * as exportKey from '../../src/transit/export.js';
import * as hashRandom from '../../src/transit/hash-random.js';
import * as hmac from '../../src/transit/hmac.js';
import * as importKey from '../../src/transit/import.js';
import * as keys from '../../src/transit/keys.js';
import * as rotateConfig from '../../src/transit/rotate-config.js';
import * as sign from '../../src/transit/sign.js';
import { key } from './route-support.js';

const ENDPOINT_MODULES = [
  backup,
  byok,
  certificates,
  config,
  datakey,
  encrypt,
  exportKey,
  hashRandom,
  hmac,
  importKey,
  keys,
  rotateConfig,
  sign,
];

/** The schemas the transit endpoint modules export. */
const endpointSchemas = new Set<EndpointSchema>(
  ENDPOINT_MODULES.flatMap((m) => Object.values(m).filter(isEndpointSchema)),
);

const ALL = [...ROUTES, ...SEAL_ROUTES];

describe('route rows and endpoint schemas', () => {
  it('every row takes its fields from an endpoint schema', () => {
    for (const r of ALL) {
      expect(isEndpointSchema(r.schema), key(r)).toBe(true);
      const types = Object.fromEntries(r.schema.names.map((n) => [n, r.schema.fields[n]?.type]));
      expect(r.fields, key(r)).toEqual(types);
    }
  });

  it("a transit row with fields uses its endpoint module's exported schema", () => {
    for (const r of ALL.filter((x) => x.path.startsWith('/transit/'))) {
      if (r.schema === NO_FIELDS) continue;
      expect(endpointSchemas.has(r.schema), `${key(r)}: schema not exported by src/transit`).toBe(
        true,
      );
    }
    expect(endpointSchemas.size).toBeGreaterThanOrEqual(20);
  });

  it('every field of every schema has a description', () => {
    const schemas = new Set<EndpointSchema>([...endpointSchemas, ...ALL.map((r) => r.schema)]);
    for (const s of schemas) {
      for (const name of s.names) {
        const description = s.fields[name]?.description ?? '';
        expect(description.trim().length, `field "${name}" has no description`).toBeGreaterThan(5);
      }
    }
  });

  it('the library checks its request with the same schema object', async () => {
    const { Transit } = await import('../../src/transit/transit.js');
    const t = new Transit({ autoRotate: false });
    await expect(t.encrypt('k', 'nope' as never)).rejects.toThrow('request must be an object');
    expect(encrypt.ENCRYPT_FIELDS.request(undefined)).toEqual({});
    await t.close();
  });

  it('a schema cannot drift from its request type (compile-time)', () => {
    const d = { description: 'a test field' } as const;
    // @ts-expect-error a field the request type does not have
    schemaFor<{ a?: string }>()({ a: { type: 'string', ...d }, b: { type: 'int', ...d } });
    // @ts-expect-error a request key without a field
    schemaFor<{ a?: string; b?: number }>()({ a: { type: 'string', ...d } });
    // @ts-expect-error a field type that cannot yield the key's type
    schemaFor<{ a?: number }>()({ a: { type: 'bool', ...d } });
    // @ts-expect-error a binary key (string | Uint8Array) declared as plain text
    schemaFor<{ a?: string | Uint8Array }>()({ a: { type: 'string', ...d } });
    // @ts-expect-error a field without a description
    schemaFor<{ a?: string }>()({ a: { type: 'string' } });
    const ok = schemaFor<{ a?: string | Uint8Array }>()({
      a: { type: 'string', binary: true, ...d },
    });
    expect(ok.names).toEqual(['a']);
  });
});
