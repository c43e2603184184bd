/**
 * A connection's frames received and not handled yet, in order, and the look ahead at them: the
 * next few are decoded as they arrive, and a `vers` message's signature checks started, so
 * verifying runs on the cores while the message before is stored (spec 05 §8 "Taking versions
 * in"). The frames are handled in order, one at a time, except that `vers` messages of one
 * space that come one after another and were decoded ahead are taken in together
 * ({@link InboxAhead.joinVersions}): one commit for all, as a store writes fastest.
 */
import { isSystemCollection } from '../names.js';
import { decodeMessage, type Message } from './messages.js';
import { type CheckedAhead, SpaceSync } from './space-sync.js';

/**
 * Frames waiting after the next one that are decoded, and whose versions' signature checks are
 * started, ahead of their turn: the next one and these, so three while one is being handled.
 * Bounded, as each holds up to `MAX_VERSIONS_PER_MESSAGE` decoded versions.
 */
export const CHECKED_AHEAD = 2;

/** A frame decoded ahead of its turn, and for `vers`, its checks started. */
export interface Early {
  message: Message;
  ahead?: CheckedAhead | undefined;
}

/** A `vers` message decoded, its checks started, ahead of its turn. */
export interface EarlyVersions {
  message: Extract<Message, { t: 'vers' }>;
  ahead: CheckedAhead;
}

/** A frame received, and what was done with it ahead of its turn. */
export interface Pending {
  readonly frame: Uint8Array;
  early?: Early | undefined;
  started?: true;
  /** Taken in with a `vers` message before it: its own turn has nothing left to do. */
  joined?: true;
}

export class InboxAhead {
  readonly #pending: Pending[] = [];

  /** `checks(space)`: whether a `vers` of that space gets its checks started (shared, proven). */
  constructor(private readonly checks: (space: string) => boolean) {}

  /**
   * A frame arrived; what is done with it ahead of its turn shows in the result's `early`, and
   * `joined` says whether a message before it took it in.
   */
  arrived(frame: Uint8Array): Readonly<Pending> {
    const pending: Pending = { frame };
    this.#pending.push(pending);
    this.#lookAhead();
    return pending;
  }

  /** The first frame's turn came: the next ones are looked at. */
  taken(): void {
    this.#pending.shift();
    this.#lookAhead();
  }

  /**
   * The `vers` messages of `space` next in line, decoded and their checks started, up to the
   * first frame that is anything else or was not looked at yet, for `vers` message `first` in
   * hand to take in with it; each is marked `joined`. None when `first` or one of them carries
   * versions of the space's own records (`sys.*`), which decide who may write what comes after
   * them: those are taken in one message at a time, in order. `mayJoin` says whether a message
   * may be handled as any other of the space (its `q` answers a want of this sync).
   */
  joinVersions(
    first: Extract<Message, { t: 'vers' }>,
    ahead: CheckedAhead | undefined,
    mayJoin: (m: Extract<Message, { t: 'vers' }>) => boolean,
  ): EarlyVersions[] {
    if (!ahead || carriesSystem(ahead)) return [];
    const joined: EarlyVersions[] = [];
    for (const pending of this.#pending) {
      const early = pending.early;
      if (early?.message.t !== 'vers' || early.message.s !== first.s || !early.ahead) break;
      if (carriesSystem(early.ahead) || !mayJoin(early.message)) break;
      pending.joined = true;
      joined.push({ message: early.message, ahead: early.ahead });
    }
    return joined;
  }

  #lookAhead(): void {
    const upTo = Math.min(CHECKED_AHEAD + 1, this.#pending.length);
    for (let i = 0; i < upTo; i++) {
      const pending = this.#pending[i]!;
      if (pending.started) continue;
      pending.started = true;
      let message: Message;
      try {
        message = decodeMessage(pending.frame);
      } catch {
        continue; // Its turn decodes it again, and ends the connection.
      }
      // Only for a space shared with a proven peer: nothing else gets its signatures checked.
      const ahead =
        message.t === 'vers' && this.checks(message.s) ? SpaceSync.checkAhead(message) : undefined;
      pending.early = { message, ahead };
    }
  }
}

const carriesSystem = (ahead: CheckedAhead) =>
  ahead.versions.some((v) => isSystemCollection(v.collection));
