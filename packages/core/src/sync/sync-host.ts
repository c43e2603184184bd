/**
 * What a sync peer needs of its node, and what it tells of a space: the interfaces between
 * `sync/` and the rest of the node. Holding (spec 05 §7.3) comes in only through these.
 */
import type { FileService } from '../files/file-channel.js';
import type { SigningKey } from '../keys.js';
import type { SpaceView } from '../space/space-view.js';
import type { SessionSlots } from './session-slots.js';

/** A closed space's fingerprint and each collection's count, as a `hello` gives them. */
export interface ClosedHello {
  fingerprint: Uint8Array;
  counts: Array<[string, number]>;
}

/** A space a peer names with its access proof (spec 05 §7.3), the proof not yet checked. */
export interface OfferedSpace {
  space: string;
  /** The access DID the proof is to verify under. */
  access: string;
  /** Checks the proof: one signature, so a holder asks only for the spaces it would keep. */
  verify(): Promise<boolean>;
}

/** What an offer names of a space to one peer (spec 05 §8 "Handshake", §7.3). */
export interface SpaceOfferFacts {
  /** The versions giving this node its role there, as bytes: its credentials. */
  shown: Uint8Array[];
  /**
   * Where the peer may hold the space without its key (a host or carrier the owner allows): the
   * space's access key, this node proves the space with it. Made when called, since an offer
   * proves only the spaces it names this time.
   */
  accessKey?: () => Promise<SigningKey | undefined>;
}

/** What a holder answers to proven spaces: those it holds for this peer, and why not the rest. */
export interface Admission {
  admitted: string[];
  refused: Array<{ space: string; reason: string }>;
}

/** What a peer connection needs of its node. */
export interface SyncHost {
  /** The DID of the writer key this node proves in the handshake. */
  readonly did: string;
  /** The certificates tying that key to the node's account (spec 05 §6); empty: it is its own. */
  readonly chain: readonly Uint8Array[];
  /**
   * Whether `subject` (a device or writer of `account`) is revoked, by what this node knows:
   * a revoked peer proves its key but is no member of anything.
   */
  revoked?(subject: string, account: string): Promise<boolean>;
  sign(message: Uint8Array): Promise<Uint8Array>;
  /** The spaces this node would sync with `did`: those it holds that `did` may read. */
  spacesFor(did: string): Promise<string[]>;
  /**
   * What an offer to `did` names of each of `spaces`, in order: its credentials there and, if
   * `did` may hold it without its key, its access key. Read together, so each space's facts are
   * read once an offer.
   */
  offerFacts(spaces: readonly string[], did: string): Promise<SpaceOfferFacts[]>;
  /** Whether this node holds space `id`, with its key or without. */
  holds(id: string): Promise<boolean>;
  /** Space `id`, opened again when it closed for being idle (spec 06 §4.1). */
  space(id: string): Promise<SpaceView>;
  /**
   * Where space `id` stood as it last closed here, while it stays closed: a connection says
   * hello in it with that, without opening it (spec 06 §4.1).
   */
  closedHello?(id: string): ClosedHello | undefined;
  /** A message of the peer's used space `id`: its idle time starts again. */
  used?(id: string): void;
  now(): number;
  /**
   * The probe key of every space this node holds with its key (spec 05 §8 "Probes"), so it can
   * tell a member who doesn't know it yet that it has the space, and match such a member's.
   * Given `wanted`, only those of the spaces it wants (only theirs are derived).
   */
  probeKeys?(wanted?: (space: string) => boolean): Promise<Array<[space: string, key: Uint8Array]>>;
  /**
   * A holder: which of the spaces `did` offers with proofs this node keeps for it (spec 05
   * §7.3). It checks the proofs of those it would keep, and throws `protocol` for one that
   * does not verify, before keeping any.
   */
  admit?(did: string, offered: readonly OfferedSpace[]): Promise<Admission>;
  /**
   * The node's session slots, shared by its connections: a session starts in a space only with
   * one, so no more run at once than their spaces can stay open (spec 06 §4.1). Absent: no bound.
   */
  sessions?: SessionSlots;
  /** Files: told when a space becomes shared with a peer, and answering its requests (§16.6). */
  files?: FileService;
}

/** How this node stands with one peer in one space. */
export interface PeerSpaceStatus {
  /** The peer's account. */
  did: string;
  /** The peer's writer key, which it proved, when it is not the account's own. */
  writer?: string;
  /** A reconciliation finished and nothing asked of the peer is outstanding. */
  synced: boolean;
  /** Both hold exactly the same versions: the fingerprints are equal. */
  level: boolean;
  /** Why the peer last refused a version of ours (a holder over its limits), if it did. */
  refused?: string;
}
