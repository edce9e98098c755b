/**
 * The streaming rows (issue 17): `POST /transit/encrypt-stream/:name` and
 * `POST /transit/decrypt-stream/:name`. Bytes in (`application/octet-stream`),
 * bytes out, in constant memory: the body is piped through the
 * `TransformStream` of `transit.encryptStream` / `transit.decryptStream`
 * and the output is the response (stream-reply.ts). Their few fields come
 * from the query string (`?context=…&key_version=…`), since the body is the
 * data.
 *
 * They are a table of their own, beside {@link ROUTES} (as the seal routes
 * are), because they are not JSON rows: no body schema, no Vault envelope.
 * Everything before the body is the same as for every row: route, sealed
 * check, token, ACL (`update` on the path, as the other data rows), fields.
 *
 * Runtime-neutral.
 * @module
 */
import { defineSchema, type FieldSpec } from '../../src/schema.js';
import { post, type Route } from './route.js';

const CONTEXT = {
  type: 'string',
  description:
    'Base64 context of a derived key: the data key is wrapped under it (as for datakey); the same context decrypts.',
} as const satisfies FieldSpec;

/** Query fields of encrypt-stream. @internal */
export const ENCRYPT_STREAM_FIELDS = defineSchema({
  context: CONTEXT,
  key_version: {
    type: 'int',
    description: 'Version of the key that wraps the data key (default: the latest).',
  },
});

/** Query fields of decrypt-stream. @internal */
export const DECRYPT_STREAM_FIELDS = defineSchema({ context: CONTEXT });

const STREAM = { stream: true } as const;

/** The options of `encryptStream` from the parsed query fields. */
function encryptOptions(body: Readonly<Record<string, unknown>>): {
  context?: string;
  keyVersion?: number;
} {
  return {
    ...(body.context === undefined ? {} : { context: body.context as string }),
    ...(body.key_version === undefined ? {} : { keyVersion: body.key_version as number }),
  };
}

/**
 * The streaming rows. Each call returns the request's `TransformStream`.
 * @internal
 */
export const STREAM_ROUTES: readonly Route[] = [
  post(
    '/transit/encrypt-stream/:name',
    { ...STREAM, fields: ENCRYPT_STREAM_FIELDS },
    (s, { path, body }) => s.transit.encryptStream(path.name, encryptOptions(body)),
  ),
  post(
    '/transit/decrypt-stream/:name',
    { ...STREAM, fields: DECRYPT_STREAM_FIELDS },
    (s, { path, body }) =>
      s.transit.decryptStream(
        path.name,
        body.context === undefined ? {} : { context: body.context as string },
      ),
  ),
];
