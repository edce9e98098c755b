/**
 * Where a request's services come from: a fixed {@link Services} object, or a
 * {@link TransitNode}, whose engine, tokens, policies and leases exist only
 * while it is unsealed (new instances on every unseal).
 *
 * With a node, every row except health and the seal routes (`whileSealed`)
 * fails with `sealed` (503) while the node is sealed or uninitialised, before
 * the token is looked at: the token store itself is behind the barrier.
 * With fixed services, the optional `health` source gives the same check.
 *
 * Runtime-neutral.
 * @module
 */
import type { TransitNode } from 'transitkit';
import { sealed } from '../../src/errors.js';
import type { HealthState } from './health.js';
import type { Route, ServedBy, Services } from './route.js';

/** What {@link createHandler} serves: fixed services, or a sealable node. @public */
export type HandlerServices = Services | TransitNode;

/** @internal */
export interface ServiceSource {
  /** Whether a row can be served at all (else 404, as an unknown path). */
  usable(route: Route, auth: boolean): boolean;
  /** The services of one request. @throws TransitError `sealed` */
  forRequest(route: Route): ServedBy | Promise<ServedBy>;
  /**
   * Refuse while sealed or uninitialised (a path no row serves, or a method
   * none takes, is a 503 then, as Vault checks the seal before routing).
   * @throws TransitError `sealed`
   */
  refuseIfSealed(): void | Promise<void>;
}

/** True for a {@link TransitNode} (duck-typed: it may come from another copy of the package). @internal */
export function isNode(s: unknown): s is TransitNode {
  const n = s as Partial<TransitNode> | null;
  return (
    typeof n === 'object' &&
    n !== null &&
    typeof n.sealStatus === 'function' &&
    typeof n.services === 'function' &&
    typeof n.unseal === 'function'
  );
}

/** @internal */
export function serviceSource(services: HandlerServices): ServiceSource {
  if (isNode(services)) {
    const node = services;
    return {
      usable: (route, auth) => !route.needsAuth || auth,
      forRequest(route) {
        if (route.whileSealed) return { node, health: node } as unknown as ServedBy;
        return { ...node.services(), node, health: node };
      },
      refuseIfSealed() {
        node.services();
      },
    };
  }
  const s = services;
  const openOrRefuse = (state: HealthState): ServedBy => {
    if (!state.initialized || state.sealed) throw sealed(state.initialized);
    return s as ServedBy;
  };
  return {
    usable: (route, auth) =>
      !route.needsNode &&
      (!route.needsAuth || (auth && s.tokens !== undefined && s.policies !== undefined)) &&
      (!route.needsLeases || s.leases !== undefined) &&
      (!route.needsAudit || s.audit !== undefined),
    forRequest(route) {
      // No promise (and no tick) when there is no health to check.
      if (!s.health || route.whileSealed) return s as ServedBy;
      const state = s.health.health();
      return state instanceof Promise ? state.then(openOrRefuse) : openOrRefuse(state);
    },
    refuseIfSealed() {
      if (!s.health) return;
      const state = s.health.health();
      if (state instanceof Promise) return state.then((st) => void openOrRefuse(st));
      openOrRefuse(state);
    },
  };
}
