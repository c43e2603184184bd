/**
 * A host's holding policy (spec 06 §3): it holds a space for the account that brings it (the
 * first peer to offer it) while that account's subscriptions in force allow one more space,
 * and takes in versions and file chunks while they keep the account's bytes within its
 * allowance: a batch that would take it past is refused whole, so it never goes over. Refusals
 * carry a reason a person can act on. Subscriptions are asked for at each decision (the store
 * answers from memory while none changed, spec 06 §2); what each space holds is tallied here
 * from what the node tells the policy. In a fleet (spec 06 §6) the subscriptions, the spaces
 * held and what other hosts hold come from the fleet's bucket.
 */
import type { DataOffer, HeldSpaceRecord, HoldingPolicy, MincaNode, SpaceOffer } from '@minca/core';
import { formatBytes } from '../output.js';
import { GroupedMap } from './grouped-map.js';
import type { Subscription } from './subscriptions.js';

interface Allowance {
  spaces: number;
  bytes: number;
  /** Why there is none, when there is none. */
  none?: string;
}

/** Where subscriptions come from: the host's own store, or its fleet's bucket. */
export interface SubscriptionSource {
  /** Every subscription of `account`, in force or not. */
  ofAccount(account: string): Promise<readonly Subscription[]>;
}

/** What the rest of a fleet holds, for a host's decisions (the fleet's bucket, fleet.ts). */
export interface FleetLedger {
  /** The fleet's account: data a host of it or the bucket brings was admitted by one of them. */
  readonly account: string;
  heldRecord(space: string): Promise<HeldSpaceRecord | undefined>;
  spacesHeldFor(account: string): string[];
  bytesElsewhere(space: string): number;
  recordHeld(record: HeldSpaceRecord): Promise<void>;
}

export class SubscriptionPolicy implements HoldingPolicy {
  /** Held space → the account it is held under; a decision asks for one account's spaces. */
  readonly #account = new GroupedMap<string>((account) => account);
  /** Held space → bytes of its versions, and of its file chunks. */
  readonly #versions = new Map<string, number>();
  readonly #files = new Map<string, number>();

  constructor(
    private readonly subscriptions: SubscriptionSource,
    private readonly now: () => number = Date.now,
    private readonly fleet?: FleetLedger,
    /** Told when the fleet's record of a space could not be written (it is tried again). */
    private readonly onFleetError: (error: unknown) => void = () => undefined,
  ) {}

  /** Learns what the node holds already (once, at start). */
  async load(node: MincaNode): Promise<void> {
    for (const held of await node.spaces.held()) {
      this.#account.set(held.id, held.offeredBy);
      this.#versions.set(held.id, held.bytes);
      this.#files.set(held.id, held.files);
    }
  }

  /** Bytes this host holds per space: versions and file chunks. */
  usage(): Map<string, number> {
    const out = new Map<string, number>();
    for (const space of this.#account.keys()) out.set(space, this.#held(space));
    return out;
  }

  #held(space: string): number {
    return (this.#versions.get(space) ?? 0) + (this.#files.get(space) ?? 0);
  }

  async #allowance(account: string): Promise<Allowance> {
    const all = await this.subscriptions.ofAccount(account);
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

  /** The spaces held for `account`: here, and anywhere in the fleet. */
  #spacesOf(account: string): string[] {
    const here = this.#account.keysOf(account);
    return [...new Set([...here, ...(this.fleet?.spacesHeldFor(account) ?? [])])];
  }

  /** What a space counts: the most any host of the fleet holds of it. */
  #counted(space: string): number {
    return Math.max(this.#held(space), this.fleet?.bytesElsewhere(space) ?? 0);
  }

  async heldElsewhere(space: string): Promise<HeldSpaceRecord | undefined> {
    return this.fleet?.heldRecord(space);
  }

  async spaceHeld(record: HeldSpaceRecord): Promise<void> {
    this.#account.set(record.space, record.offeredBy);
    if (!this.#versions.has(record.space)) this.#versions.set(record.space, 0);
    // The fleet's record lets any host hold the space under the same key and account. Written
    // beside the admission, not before it: a bucket that is slow or down holds up no member
    // (a record not written is written at the next refresh).
    void this.fleet?.recordHeld(record).catch(this.onFleetError);
  }

  async acceptSpace(offer: SpaceOffer): Promise<string | undefined> {
    const allowance = await this.#allowance(offer.peer);
    if (allowance.none) return allowance.none;
    const held = this.#spacesOf(offer.peer).length;
    if (held >= allowance.spaces) {
      return `${offer.peer} may keep ${allowance.spaces} space(s) on this host and keeps ${held}`;
    }
    // Counted from now, so two offers at once can't both take the last place.
    this.#account.set(offer.space, offer.peer);
    this.#versions.set(offer.space, 0);
    return undefined;
  }

  async acceptData(offer: DataOffer): Promise<string | undefined> {
    const { space } = offer;
    const account = this.#account.get(space);
    // A space held before this policy knew of it: held under the peer that brings data now.
    if (account === undefined) this.#account.set(space, offer.peer);
    const owner = account ?? offer.peer;
    const tally = offer.file === undefined ? this.#versions : this.#files;
    if (offer.file === undefined) this.#versions.set(space, offer.held.bytes);
    else if (offer.held.files !== undefined) this.#files.set(space, offer.held.files);
    // Another host of the fleet, or the fleet's bucket, brings what a host of it took in and
    // counted already: it is kept, and counts.
    if (this.fleet && (offer.peer === this.fleet.account || offer.mirror)) {
      tally.set(space, (tally.get(space) ?? 0) + offer.bytes);
      return undefined;
    }
    const allowance = await this.#allowance(owner);
    if (allowance.none) return `${allowance.none}: it keeps what it holds, and takes nothing new`;
    const spaces = this.#spacesOf(owner);
    if (!spaces.includes(space)) spaces.push(space);
    const used = spaces.reduce((n, s) => n + this.#counted(s), 0);
    const fleetHas = this.fleet?.bytesElsewhere(space) ?? 0;
    const after = used - this.#counted(space) + Math.max(this.#held(space) + offer.bytes, fleetHas);
    if (after > allowance.bytes) {
      const what = offer.file === undefined ? 'versions' : 'file';
      return `${owner} is over its ${formatBytes(allowance.bytes)} on this host with these ${what} (${formatBytes(used)} held, ${formatBytes(offer.bytes)} more): it keeps what it holds`;
    }
    tally.set(space, (tally.get(space) ?? 0) + offer.bytes);
    return undefined;
  }
}
