/**
 * `transitkit server --config FILE`: the JSON config file, its keys (Vault's
 * names, snake case), and the checks made when it is read. Flags and
 * `TRANSITKIT_*` variables win over it (server.ts).
 * @module
 */
import { readFile } from 'node:fs/promises';
import { policyName } from '../../src/auth/acl-policies.js';
import { parsePolicy } from '../../src/auth/policy-hcl.js';
import { parseApiAddr, parseDurationMs, parseMount, UsageError } from './flags.js';

/** The JSON config file. */
export interface ConfigFile {
  listen?: string;
  storage?: string;
  mount?: string;
  max_request_bytes?: number;
  max_stream_bytes?: number;
  policies?: Record<string, unknown>;
  leader_ttl?: string;
  leader_refresh?: string;
  auto_rotate_interval?: string;
  metrics_listen?: string;
  unauthenticated_metrics_access?: boolean;
  allow_audit_log_prefixing?: boolean;
  api_addr?: string;
}

const CONFIG_KEYS = new Set([
  'listen',
  'storage',
  'mount',
  'max_request_bytes',
  'max_stream_bytes',
  'policies',
  'leader_ttl',
  'leader_refresh',
  'auto_rotate_interval',
  'metrics_listen',
  'unauthenticated_metrics_access',
  'allow_audit_log_prefixing',
  'api_addr',
]);

/** Config keys whose value is a string (a number or an object there is refused). */
const STRING_KEYS = new Set(['listen', 'storage', 'mount', 'metrics_listen', 'api_addr']);

/** A duration from the config file (a string as the flag's value, or a number of seconds). */
export function configDuration(flag: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new UsageError(`config: ${flag.replaceAll('-', '_')} must be a duration string`);
  }
  return parseDurationMs(flag, String(value));
}

export async function loadConfig(file: string | undefined): Promise<ConfigFile> {
  if (file === undefined) return {};
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`cannot read config ${file}: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new UsageError(`config ${file} must be a JSON object`);
  }
  for (const [key, value] of Object.entries(doc)) {
    if (!CONFIG_KEYS.has(key))
      throw new UsageError(`config ${file}: unknown key ${JSON.stringify(key)}`);
    // The rest are checked where they are used (durations, the metrics and prefixing switches).
    if (STRING_KEYS.has(key) && typeof value !== 'string') {
      throw new UsageError(`config ${file}: ${key} must be a string`);
    }
    if (key === 'api_addr') parseApiAddr(value as string, `config ${file}: api_addr`);
    if (key === 'mount') parseMount(value, `config ${file}: mount`);
    if (
      (key === 'max_request_bytes' || key === 'max_stream_bytes') &&
      (!Number.isSafeInteger(value) || (value as number) < 1)
    ) {
      throw new UsageError(`config ${file}: ${key} must be a positive integer`);
    }
    if (key === 'policies') checkPolicies(value, `config ${file}: policies`);
  }
  return doc as ConfigFile;
}

/**
 * The config's policies, each parsed as a policy write would (checked here,
 * before storage is opened: found at unseal, a bad one failed a start-up that
 * had just initialised a store, and its one-time secrets were never shown).
 */
function checkPolicies(value: unknown, what: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be an object of name to policy`);
  }
  for (const [name, policy] of Object.entries(value)) {
    try {
      if (policyName(name) === 'root') throw new Error('cannot update "root" policy');
      const text = typeof policy === 'string' ? policy : JSON.stringify(policy);
      if (typeof text !== 'string' || text.trim() === '') throw new Error('empty policy');
      parsePolicy(text);
    } catch (e) {
      throw new UsageError(`${what}.${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
