/**
 * Global transit settings, persisted in storage.
 *
 * Routes: `POST|GET /transit/config/keys` (`disable_upsert`),
 * `POST|GET /transit/cache-config` (`size`; 0 = unlimited, else >= 10,
 * least-recently-used eviction, applied at once).
 * @module
 */
import { fromUtf8, utf8 } from '../encoding.js';
import { internal, invalidRequest } from '../errors.js';
import { optBool, optInt } from '../request.js';
import { schemaFor } from '../schema.js';
import { keyspace } from '../storage/keyspace.js';
import type { Engine } from './engine.js';
import type { CacheConfig, KeysConfig } from './types.js';

/** Fields of `POST /transit/config/keys`. @public */
export const KEYS_CONFIG_FIELDS = schemaFor<Partial<KeysConfig>>()({
  disable_upsert: { type: 'bool', description: 'Refuse to create missing keys on encrypt.' },
});

/** Fields of `POST /transit/cache-config`. @public */
export const CACHE_CONFIG_FIELDS = schemaFor<Partial<CacheConfig>>()({
  size: { type: 'int', description: 'Parsed-key cache size: 0 = unbounded, else at least 10.' },
});

/** Smallest non-zero cache size. @internal */
export const MIN_CACHE_SIZE = 10;

async function readJson(e: Engine, path: string): Promise<Record<string, unknown> | undefined> {
  const raw = await e.storage.get(path);
  if (!raw) return undefined;
  try {
    const j: unknown = JSON.parse(fromUtf8(raw));
    if (typeof j === 'object' && j !== null) return j as Record<string, unknown>;
  } catch (err) {
    throw internal(`stored setting ${path} is not valid JSON`, err);
  }
  throw internal(`stored setting ${path} is not an object`);
}

/** Loads started per engine: only the newest may apply its result. */
const loads = new WeakMap<Engine, number>();

/**
 * Load the persisted cache size into the engine (at start, and when another
 * instance changed the settings), and check that the keys configuration
 * reads (a damaged one fails the start). Overlapping loads apply in order: an
 * older load finishing last does not overwrite a newer one. When the
 * settings cannot be read, the cache size is kept (upsert is decided from
 * storage, {@link upsertDisabled}).
 * @internal
 */
export async function loadSettings(e: Engine): Promise<void> {
  const mine = (loads.get(e) ?? 0) + 1;
  loads.set(e, mine);
  await readJson(e, keyspace.keysConfig);
  const cache = await readJson(e, keyspace.cacheConfig);
  if (loads.get(e) !== mine) return; // a newer load owns the settings
  if (typeof cache?.size === 'number') e.settings.cache_size = cache.size;
  e.store.setCacheSize(e.settings.cache_size);
}

/**
 * Whether upsert is disabled, as storage says now: read on the one path it
 * decides (creating a missing key on encrypt), so a change made on another
 * instance holds here at once, either way, whatever this instance's change
 * feed or its last reload did. Fails closed: a setting that cannot be read
 * (storage failing, a damaged entry) disables upsert.
 * @internal
 */
export async function upsertDisabled(e: Engine): Promise<boolean> {
  try {
    return (await readJson(e, keyspace.keysConfig))?.disable_upsert === true;
  } catch {
    return true;
  }
}

/**
 * `GET transit/config/keys`, as storage says now (as the upsert it decides).
 * @internal
 */
export async function readKeysConfig(e: Engine): Promise<KeysConfig> {
  return { disable_upsert: await upsertDisabled(e) };
}

/** @internal */
export async function writeKeysConfig(e: Engine, req: Partial<KeysConfig>): Promise<KeysConfig> {
  const v = optBool(KEYS_CONFIG_FIELDS.request(req).disable_upsert, 'disable_upsert') ?? false;
  // Nothing is kept here: upsert and reads of the setting read storage.
  await e.storage.put(keyspace.keysConfig, utf8(JSON.stringify({ disable_upsert: v })));
  return { disable_upsert: v };
}

/** @internal */
export function readCacheConfig(e: Engine): CacheConfig {
  return { size: e.settings.cache_size };
}

/** @internal */
export async function writeCacheConfig(e: Engine, req: Partial<CacheConfig>): Promise<CacheConfig> {
  const size = optInt(CACHE_CONFIG_FIELDS.request(req).size, 'size') ?? 0;
  if (size !== 0 && size < MIN_CACHE_SIZE) {
    throw invalidRequest('size must be 0 or a value greater or equal to 10');
  }
  const before = loads.get(e) ?? 0;
  await e.storage.put(keyspace.cacheConfig, utf8(JSON.stringify({ size })));
  if ((loads.get(e) ?? 0) !== before) {
    // A load started while the write was in flight (a change notification) may
    // come from another instance's later write: storage decides, read again
    // (this write's value applied over it would stay, with no notification
    // left to correct it). The write landed whatever this read does.
    await loadSettings(e).catch(() => undefined);
  } else {
    // A load started before the write read older settings: it is discarded.
    loads.set(e, before + 1);
    e.settings.cache_size = size;
    e.store.setCacheSize(size);
  }
  return { size };
}
