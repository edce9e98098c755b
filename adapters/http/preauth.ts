/**
 * The ACL check before the body of a row whose ACL path the body completes
 * (`aclFromBody`: hash, hmac, sign, verify, restore). The final path is known
 * only after the body is parsed, but a token that cannot be allowed on the
 * path as sent *nor on any one-segment completion of it* is refused (403)
 * before a byte of the body is read: a `default` token posting 32 MiB to
 * `transit/hash` costs the server nothing. The exact check on the completed
 * path still follows the parse (auth.ts {@link authorize}).
 *
 * "Some completion `path/X` is allowed" is decided with the ACL itself, on a
 * few witness values of `X` taken from the token's policy patterns: each
 * pattern's literal segment at that position, its glob prefix followed by a
 * segment no policy can name, and that segment alone (standing for every `+`
 * and every shorter glob). If any `X` is allowed, the most specific rule for
 * it also wins for one of these witnesses, since a witness matches only rules
 * that `X` matches too — so a token is never refused here that the final
 * check would let through.
 *
 * Runtime-neutral.
 * @module
 */
import { type Acl, type AclOperation, parsePolicy, type TokenContext } from 'transitkit';
import { TransitError } from '../../src/errors.js';
import type { Route, Services } from './route.js';

/** A segment no policy pattern contains (NUL cannot appear in a request path either). */
const UNNAMED = '\u0000';

/**
 * Policy patterns behind a compiled ACL (the store replaces the ACL when a
 * policy changes; an unwatched store compiles a new one per request, so the
 * texts are read again — only for tokens whose grants name exact completions).
 */
const PATTERNS = new WeakMap<Acl, Promise<readonly string[]>>();

async function patternsOf(
  services: Services,
  acl: Acl,
  names: readonly string[],
): Promise<readonly string[]> {
  let got = PATTERNS.get(acl);
  if (!got) {
    got = (async () => {
      const out: string[] = [];
      for (const name of new Set(names)) {
        try {
          const doc = await services.policies?.read(name);
          if (doc) for (const r of parsePolicy(doc.policy).rules) out.push(r.path);
        } catch {
          // an unreadable policy grants nothing (as the store compiles it)
        }
      }
      return out;
    })();
    PATTERNS.set(acl, got);
  }
  return got;
}

/** Witness values for the segment after `depth` segments (see the module comment). */
export function witnesses(patterns: readonly string[], depth: number): string[] {
  const out = new Set<string>([UNNAMED]);
  for (const raw of patterns) {
    const pattern = raw.replace(/^\/+/, '');
    const glob = pattern.endsWith('*');
    const segs = (glob ? pattern.slice(0, -1) : pattern).split('/');
    const seg = segs[depth];
    if (seg === undefined || seg === '+') continue;
    out.add(glob && depth === segs.length - 1 ? seg + UNNAMED : seg);
  }
  return [...out];
}

const denied = () => new TransitError('permission_denied', 'permission denied');

/**
 * Refuse a token that no completion of `aclPath` (itself included) allows.
 * A no-op without a token (`auth: false`) or on unauthenticated rows.
 * @throws TransitError `permission_denied`.
 * @internal
 */
export async function authorizeSomeCompletion(
  services: Services,
  route: Route,
  aclPath: string,
  token: TokenContext | undefined,
): Promise<void> {
  if (route.cap === null || !token) return;
  if (!services.policies) throw denied();
  const acl = await services.policies.acl(token.policies);
  const ops: AclOperation[] = route.cap === 'create|update' ? ['create', 'update'] : [route.cap];
  const allowed = (p: string) => ops.some((op) => acl.allows(p, op, route.sudo));
  // The common grants (`…/*`, `…/+`) need no policy text: the path itself or an unnamed segment.
  if (allowed(aclPath) || allowed(`${aclPath}/${UNNAMED}`)) return;
  const depth = aclPath.split('/').length;
  for (const x of witnesses(await patternsOf(services, acl, token.policies), depth)) {
    if (allowed(`${aclPath}/${x}`)) return;
  }
  throw denied();
}
