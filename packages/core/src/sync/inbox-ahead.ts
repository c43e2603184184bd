/**
 * A connection's frames received and not handled yet, in order, and the look ahead at them: the
 * next few are decoded as they arrive, and a `vers` message's signature checks started, so
 * verifying runs on the cores while the message before is stored (spec 05 §8 "Taking versions
 * in"). The frames are still handled one at a time, in order.
 */
import { decodeMessage, type Message } from './messages.js';
import { type CheckedAhead, SpaceSync } from './space-sync.js';

/**
 * Frames after the one being handled that are decoded, and whose versions' signature checks are
 * started, ahead of their turn. Bounded, as each holds up to `MAX_VERSIONS_PER_MESSAGE` decoded
 * versions.
 */
export const CHECKED_AHEAD = 2;

/** A frame decoded ahead of its turn, and for `vers`, its checks started. */
export interface Early {
  message: Message;
  ahead?: CheckedAhead | undefined;
}

interface Pending {
  frame: Uint8Array;
  early?: Early | undefined;
  started?: true;
}

export class InboxAhead {
  readonly #pending: Pending[] = [];

  /** `checks(space)`: whether a `vers` of that space gets its checks started (shared, proven). */
  constructor(private readonly checks: (space: string) => boolean) {}

  /** A frame arrived; what is done with it ahead of its turn shows in the result's `early`. */
  arrived(frame: Uint8Array): { readonly early?: Early | undefined } {
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
      pending.early = {
        message,
        // Only for a space shared with a proven peer: nothing else gets its signatures checked.
        ahead:
          message.t === 'vers' && this.checks(message.s)
            ? SpaceSync.checkAhead(message)
            : undefined,
      };
    }
  }
}
