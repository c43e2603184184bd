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

/** What a holder keeps of a space it holds (spec 05 §7.3): its `held/<space id>` entry. */
export interface HeldSpaceRecord {
  space: string;
  /** The space's access DID: every peer proves the space with it. */
  access: string;
  /** The DID of the peer that first offered it, whose account it counts against. */
  offeredBy: string;
  /** When it was first held, ms. */
  added: number;
}

/**
 * Versions a peer sends for a held space, before they are stored; or, with `file`, a file's
 * chunks a holder is about to fetch.
 */
export interface DataOffer {
  space: string;
  /**
   * The DID of the peer sending them; when a mirror brings them (`mirror`), the DID that first
   * offered the space, whose account they count against.
   */
  peer: string;
  /** True when the versions come from one of the node's mirrors (spec 05 §16), not a peer. */
  mirror?: true;
  /**
   * A file's id, when the offer is that file's chunks (fetched by a holder with `fetchFiles:
   * 'all'`): `versions` is 0 and `bytes` the sealed bytes of the chunks not held yet.
   */
  file?: string;
  /** How many new versions, and their bytes. */
  versions: number;
  bytes: number;
  /**
   * What the space holds already: its versions and their bytes; with a file's offer also
   * `files`, the sealed bytes of the file chunks it holds.
   */
  held: { versions: number; bytes: number; files?: number };
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
  /**
   * Where a space not held here is known elsewhere (another host of the same fleet, spec 06
   * §6): its record, asked before {@link acceptSpace}. Found, the space is held under that
   * record's access DID and offering peer without asking `acceptSpace`; a proof under another
   * access DID is refused.
   */
  heldElsewhere?(space: string): HeldSpaceRecord | undefined | Promise<HeldSpaceRecord | undefined>;
  /** Told once a space is newly held here, after the peer's proof verified. */
  spaceHeld?(record: HeldSpaceRecord): void | Promise<void>;
}
