/**
 * How often a node speaks and how much it asks for at once: its own choice, not the protocol's.
 * These are the numbers of the product page's "Pacing sync" table.
 */

/** A hello to every peer this often, finding what a lost message missed. */
export const HEARTBEAT_MS = 30_000;
/** A hello this soon after taking in, so a version passed along doesn't wait a heartbeat per hop. */
export const HELLO_AFTER_TAKE_IN_MS = 100;
/** Changes to who shares what this close together are named to a peer in one offer. */
export const REOFFER_AFTER_MS = 20;
/** Wants in flight per peer; when one is answered, the next goes. */
export const MAX_WANTS_IN_FLIGHT = 4;
/** Ids in one want. */
export const MAX_IDS_PER_WANT = 256;
/** Rounds per session, counted by the side that started; past them the session is given up. */
export const MAX_ROUNDS = 64;
/** A silent session, or an unanswered want, is dropped after this and found again later. */
export const STALE_MS = 30_000;
/** Versions held back for later wait in memory; past this many the oldest go. */
export const MAX_WAITING = 1_000;
/** A refused version isn't asked of that peer again; past this many the oldest are forgotten. */
export const MAX_REFUSALS = 10_000;
