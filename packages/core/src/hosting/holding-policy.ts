/**
 * What a holder (a host or carrier node, spec 05 §7.3) decides per peer: whether to hold a
 * space it is offered, and whether to take in more data. The CLI's host keeps subscriptions
 * with limits behind these hooks.
 */

/** A peer offering a space this node does not hold yet. */
export interface SpaceOffer {
  /** The space's id. */
  space: string;
  /** The DID of the peer offering it: it proved it holds the space (spec 05 §7.3). */
  peer: string;
  /** The space's access DID the peer gave; kept, and asked of every later peer. */
  access: string;
}

/** Versions a peer sends for a held space, before they are stored. */
export interface DataOffer {
  space: string;
  /**
   * The DID of the peer sending them; when a mirror brings them (`mirror`), the DID that first
   * offered the space, whose account they count against.
   */
  peer: string;
  /** True when the versions come from one of the node's mirrors (spec 05 §16), not a peer. */
  mirror?: true;
  /** How many new versions, and their bytes. */
  versions: number;
  bytes: number;
  /** What the space holds already. */
  held: { versions: number; bytes: number };
}

/**
 * The hooks of a holder. Each returns a reason to refuse (told to the peer, at most 500
 * characters), or nothing to accept. Without a hook, everything is accepted.
 */
export interface HoldingPolicy {
  /** Whether to start holding a space a peer offers. Refused, it is not kept or named back. */
  acceptSpace?(offer: SpaceOffer): string | undefined | Promise<string | undefined>;
  /**
   * Whether to take in versions of a held space. Refused, each is answered with `refuse` and
   * that reason, and nothing held is dropped.
   */
  acceptData?(offer: DataOffer): string | undefined | Promise<string | undefined>;
}
