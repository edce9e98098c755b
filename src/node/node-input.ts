/**
 * What a {@link TransitNode} takes from its caller, checked before it is
 * used: the constructor's options (every key known, the nested ones too, so
 * a misspelt `transit.cacheSiz` or `rootkey` is refused, not a default in
 * silence; a whole storage adapter) and the `init` and `unseal` requests in
 * Vault's Go types (Vault decodes those bodies into structs).
 * @module
 */

import { AUDIT_BROKER_OPTIONS, type AuditBrokerOptions } from '../audit/broker.js';
import { TOKEN_STORE_OPTIONS, type TokenStoreOptions } from '../auth/token-entry.js';
import { invalidRequest } from '../errors.js';
import { LEASE_MANAGER_OPTIONS } from '../leases/lease-options.js';
import type { LeaseManagerOptions } from '../leases/types.js';
import { asRequest, type GoFieldType, goUnmarshalError } from '../request.js';
import { requireStorageAdapter } from '../storage/adapter.js';
import { TRANSIT_OPTIONS, type TransitOptions } from '../transit/options.js';
import { optionKeys, passedOn, refuseUnknownOptions } from '../util/options.js';
import { ROOT_KEY_BYTES } from './keyring.js';
import { checkApiAddr } from './leader-advert.js';
import type { InitRequest, TransitNodeOptions, UnsealRequest } from './types.js';

/** Every option of {@link TransitNodeOptions}. */
const NODE_OPTIONS = /* @__PURE__ */ optionKeys<TransitNodeOptions>({
  storage: true,
  crypto: true,
  clock: true,
  rootKey: true,
  initialRootToken: true,
  transit: true,
  leases: true,
  tokens: true,
  audit: true,
  onUnseal: true,
  version: true,
  storageType: true,
  metrics: true,
  apiAddr: true,
});

/** A nested option of {@link TransitNodeOptions}, as the node takes it. */
type Nested<K extends keyof TransitNodeOptions> = NonNullable<TransitNodeOptions[K]>;

/**
 * The options a node passes on to each service, less those it sets itself:
 * each list is held by the compiler to the `Omit` in types.ts.
 */
const NESTED: ReadonlyArray<readonly [keyof TransitNodeOptions, ReadonlySet<string>]> = [
  [
    'transit',
    passedOn<TransitOptions, Nested<'transit'>>(
      TRANSIT_OPTIONS,
      { storage: true, crypto: true, clock: true },
      {},
    ),
  ],
  [
    'leases',
    passedOn<LeaseManagerOptions, Nested<'leases'>>(
      LEASE_MANAGER_OPTIONS,
      { storage: true, clock: true, tokenExists: true, tokenKey: true },
      { tickMs: true },
    ),
  ],
  [
    'tokens',
    passedOn<TokenStoreOptions, Nested<'tokens'>>(
      TOKEN_STORE_OPTIONS,
      { storage: true, clock: true, crypto: true, leases: true },
      {},
    ),
  ],
  [
    'audit',
    passedOn<AuditBrokerOptions, Nested<'audit'>>(
      AUDIT_BROKER_OPTIONS,
      { storage: true, crypto: true, clock: true },
      {},
    ),
  ],
];

/**
 * The node's options, checked.
 * @throws TransitError `invalid_request` for an unknown option (nested ones
 * included, named `transit.<key>`), a storage that is not a whole adapter, or
 * a bad root key.
 * @internal
 */
export function nodeOptions(options: TransitNodeOptions): TransitNodeOptions {
  const o = asRequest(options, 'options') as unknown as TransitNodeOptions;
  refuseUnknownOptions(o, NODE_OPTIONS, 'TransitNode');
  for (const [name, known] of NESTED) {
    const nested = o[name];
    if (nested === undefined) continue;
    if (typeof nested !== 'object' || nested === null || Array.isArray(nested)) {
      throw invalidRequest(`'${name}' must be an object of options`);
    }
    refuseUnknownOptions(nested, known, 'TransitNode', `${name}.`);
  }
  requireStorageAdapter(o.storage);
  if (o.apiAddr !== undefined) checkApiAddr(o.apiAddr);
  if (
    o.rootKey !== undefined &&
    (!(o.rootKey instanceof Uint8Array) || o.rootKey.length !== ROOT_KEY_BYTES)
  ) {
    throw invalidRequest(`'rootKey' must be ${ROOT_KEY_BYTES} bytes`);
  }
  return o;
}

/**
 * Refuse a value Go's encoding/json would not store in a field of Go type
 * `type` (Vault decodes the `sys/init` and `sys/unseal` bodies into structs).
 * @throws TransitError `invalid_request` with Go's text.
 */
function goType(value: unknown, type: GoFieldType, field: string): void {
  const error = goUnmarshalError(value, type, field);
  if (error !== undefined) throw invalidRequest(error);
}

/**
 * An init request whose share counts are Go ints: a string or boolean count
 * is refused with encoding/json's text, not read loosely.
 * @internal
 */
export function initRequest(request: unknown): Partial<InitRequest> {
  const r = asRequest(request, 'request') as Partial<InitRequest>;
  for (const f of ['secret_shares', 'secret_threshold'] as const) {
    if (typeof r[f] !== 'number') goType(r[f], 'int', `InitRequest.${f}`);
  }
  return r;
}

/**
 * An unseal request with Vault's `UnsealRequest` types: `key` a string,
 * `reset` a boolean (`"true"` is refused, never ignored); `null` is absent.
 * @internal
 */
export function unsealRequest(request: unknown): UnsealRequest {
  const r = asRequest(request, 'request');
  goType(r.key, 'string', 'UnsealRequest.Key');
  goType(r.reset, 'bool', 'UnsealRequest.Reset');
  return {
    key: (r.key ?? undefined) as string | undefined,
    reset: (r.reset ?? undefined) as boolean | undefined,
  };
}
