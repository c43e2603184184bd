/**
 * A host's holding policy (spec 06 §3): it holds a space for the account that brings it (the
 * first peer to offer it) while that account's subscriptions in force allow one more space,
 * and takes in data while the account's bytes are under its allowance. Refusals carry a reason
 * a person can act on. Subscriptions are read from the store at each decision; what each space
 * holds is tallied here from what the node tells the policy.
 */
import type { DataOffer, HoldingPolicy, MincaNode, SpaceOffer } from '@minca/core';
import { formatBytes } from '../output.js';
import type { Subscription, Subscriptions } from './subscriptions.js';

interface Allowance {
  spaces: number;
  bytes: number;
  /** Why there is none, when there is none. */
  none?: string;
}

export class SubscriptionPolicy implements HoldingPolicy {
  /** Held space → the account it is held under. */
  readonly #account = new Map<string, string>();
  /** Held space → bytes of its versions. */
  readonly #bytes = new Map<string, number>();

  constructor(
    private readonly subscriptions: Subscriptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Learns what the node holds already (once, at start). */
  async load(node: MincaNode): Promise<void> {
    for (const held of await node.spaces.held()) {
      this.#account.set(held.id, held.offeredBy);
      this.#bytes.set(held.id, held.bytes);
    }
  }

  async #allowance(account: string): Promise<Allowance> {
    const all = (await this.subscriptions.list()).filter((s) => s.account === account);
    const now = this.now();
    const inForce = all.filter((s) => (s.expires ?? Infinity) > now);
    if (inForce.length === 0) {
      if (all.length === 0)
        return { spaces: 0, bytes: 0, none: `no subscription for ${account} on this host` };
      const last = Math.max(...all.map((s: Subscription) => s.expires ?? 0));
      return {
        spaces: 0,
        bytes: 0,
        none: `the subscription for ${account} expired on ${new Date(last).toISOString()}`,
      };
    }
    return {
      spaces: inForce.reduce((n, s) => n + s.spaces, 0),
      bytes: inForce.reduce((n, s) => n + s.bytes, 0),
    };
  }

  #spacesOf(account: string): string[] {
    return [...this.#account].flatMap(([space, a]) => (a === account ? [space] : []));
  }

  async acceptSpace(offer: SpaceOffer): Promise<string | undefined> {
    const allowance = await this.#allowance(offer.peer);
    if (allowance.none) return allowance.none;
    const held = this.#spacesOf(offer.peer).length;
    if (held >= allowance.spaces) {
      return `${offer.peer} may keep ${allowance.spaces} space(s) on this host and keeps ${held}`;
    }
    this.#account.set(offer.space, offer.peer);
    this.#bytes.set(offer.space, 0);
    return undefined;
  }

  async acceptData(offer: DataOffer): Promise<string | undefined> {
    const account = this.#account.get(offer.space);
    // A space held before this policy knew of it: held under the peer that brings data now.
    if (account === undefined) this.#account.set(offer.space, offer.peer);
    const owner = account ?? offer.peer;
    this.#bytes.set(offer.space, offer.held.bytes);
    const allowance = await this.#allowance(owner);
    if (allowance.none) return `${allowance.none}: it keeps what it holds, and takes nothing new`;
    const used = this.#spacesOf(owner).reduce((n, s) => n + (this.#bytes.get(s) ?? 0), 0);
    if (used >= allowance.bytes) {
      return `${owner} is over its ${formatBytes(allowance.bytes)} on this host (${formatBytes(used)} held): it keeps what it holds, and takes nothing new`;
    }
    this.#bytes.set(offer.space, offer.held.bytes + offer.bytes);
    return undefined;
  }
}
