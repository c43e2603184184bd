/**
 * One view of a space for the parts of a node that move versions and files: sync, files and
 * mirrors. A member's space (`OpenSpace`, with the key) and a holder's (`HeldSpace`,
 * without it, spec 05 §7.3) are both one; they differ in what each can judge.
 */
import type { Store } from '../store.js';
import type { Version } from '../version.js';

/** What changed in a space, told once per change taken in. */
export interface SpaceChange {
  space: string;
  collections: string[];
}

/** Where versions being taken in come from: a peer (by DID), or one of the node's mirrors. */
export type VersionSource = { peer: string } | { mirror: true };

export interface SpaceView {
  readonly id: string;
  readonly store: Store;
  /** The space key new bodies are sealed under; `undefined` where it is held without it (§7.3). */
  readonly key: Uint8Array | undefined;
  /** Every key of the space this node holds, oldest first (§7.4); none on a holder. */
  readonly keys: readonly Uint8Array[];
  /**
   * Whether `author` may write now, so its versions stand. A holder can't read membership, so
   * for it every author may: what it took in was checked when it came.
   */
  mayWrite(author: string): Promise<boolean>;
  /**
   * Whether each verified version from outside may be kept, by what the space holds now: one
   * answer per version, in order (asked once for a message's versions, not once each).
   */
  mayTakeIn(versions: readonly Version[]): Promise<boolean[]>;
  /** A reason to refuse new versions from `from` (a holder over its limits), or `undefined`. */
  refusal(from: VersionSource, versions: readonly Version[]): Promise<string | undefined>;
  /**
   * A holder's reason not to fetch a file's chunks (over its limits, spec 06 §3): `bytes` the
   * sealed bytes not held yet, `filesHeld` those of every file chunk the space holds. Absent
   * where nothing limits what a node fetches.
   */
  fileRefusal?(file: string, bytes: number, filesHeld: number): Promise<string | undefined>;
  /** Stores versions already verified and admitted, and tells listeners once. Returns the new ones. */
  takeIn(versions: readonly Version[]): Promise<Version[]>;
  /**
   * Whether bodies that open under none of this node's keys may be kept unread: a member left
   * out of a key change (spec 05 §7.4) still holds what is written after, without reading it.
   */
  keptUnread?(batch: readonly Version[]): Promise<boolean>;
  /** Whether `version` is one of the credentials `did` may show here (spec 05 §8). */
  isCredentialOf(version: Version, did: string): boolean;
  /** Calls `listener` after each change taken in. Returns the unsubscribe. */
  subscribe(listener: (change: SpaceChange) => void): () => void;
}
