/**
 * A connection's frames received and not handled yet, in order, and the look ahead at them: the
 * next few are decoded as they arrive, and a `vers` message's signature checks and the opening
 * of its bodies started, so both run on the cores while the message before is stored (spec 05
 * §8 "Taking versions in"). The frames are handled in order, one at a time, except that `vers`
 * messages of one space that come one after another, decoded and checked ahead, are taken in
 * together ({@link InboxAhead.joinVersions}): one commit for all, as a store writes fastest.
 */
import { type DoneAhead, decodeIncoming, startOpening, startVerifying } from '../intake.js';
import { isSystemCollection } from '../names.js';
import type { Version } from '../version.js';
import { decodeMessage, type Message } from './messages.js';

/**
 * Frames waiting after the next one that are decoded, and whose versions' signature checks are
 * started, ahead of their turn: the next one and these, so three while one is being handled
 * (and three after those joined to it, {@link InboxAhead.joinVersions}). Bounded, as each holds
 * up to `MAX_VERSIONS_PER_MESSAGE` decoded versions.
 */
export const CHECKED_AHEAD = 2;

/** A `vers` message decoded, and its signature checks started, ahead of its turn. */
export interface CheckedAhead {
  versions: Version[];
  /** The checks of those of `versions` not held here then (`checking`). */
  verified: Promise<void>;
  checking: ReadonlySet<Version>;
  /**
   * Those of `checking` whose bodies opened, under the keys the space had then: what
   * `verifyIncoming` need not open again. Empty where nothing was opened ahead; never rejects.
   */
  opened: Promise<ReadonlySet<Version>>;
  /** Whether `verified` has settled: the checks are over, passed or failed. */
  checked: boolean;
}

/** What the look-ahead uses of a space open here: its keys, and what its store holds. */
export interface SpaceAhead {
  readonly keys: readonly Uint8Array[];
  readonly store: { hasVersion(collection: string, id: string): boolean };
}

/**
 * Decodes a `vers` message and starts its signature checks before its turn, and with the
 * space's keys the opening of its bodies, so both run on the cores while the messages before it
 * are stored; `undefined` if it does not decode (which its turn then finds). Versions the
 * space's store holds already are left out: a peer sending them again costs a lookup, as at
 * their turn, not a check. The checks and openings stand only for these versions, wherever
 * handled.
 */
export function checkAhead(
  m: Extract<Message, { t: 'vers' }>,
  space?: SpaceAhead,
): CheckedAhead | undefined {
  let versions: Version[];
  try {
    versions = decodeIncoming(m.v);
  } catch {
    return undefined;
  }
  const held = space?.store;
  const checking = held ? versions.filter((v) => !held.hasVersion(v.collection, v.id)) : versions;
  const ahead: CheckedAhead = {
    versions,
    verified: startVerifying(checking),
    checking: new Set(checking),
    opened: startOpening(checking, space?.keys ?? []),
    checked: false,
  };
  const over = () => {
    ahead.checked = true;
  };
  ahead.verified.then(over, over);
  return ahead;
}

/** What a `vers` message's turn is given of what {@link checkAhead} did: for `verifyIncoming`. */
export async function doneAhead(aheads: readonly CheckedAhead[]): Promise<DoneAhead> {
  const checking = new Set<Version>();
  const opened = new Set<Version>();
  for (const ahead of aheads) {
    for (const v of ahead.checking) checking.add(v);
    for (const v of await ahead.opened) opened.add(v);
  }
  const verified = Promise.all(aheads.map((a) => a.verified)).then(() => {});
  verified.catch(() => {}); // met by verifyIncoming; never left unhandled meanwhile
  return { verified, checking, opened };
}

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

  /**
   * `checks(space)`: whether a `vers` of that space gets its checks started (shared, proven);
   * `space(id)`: the space, if it is open here, whose keys its bodies are opened ahead with and
   * whose versions held are not checked again.
   */
  constructor(
    private readonly checks: (space: string) => boolean,
    private readonly space: (id: string) => SpaceAhead | undefined = () => undefined,
  ) {}

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
   * The `vers` messages of `space` next in line whose checks are over, up to the first frame
   * that is anything else or whose checks still run, for `vers` message `first` in hand to take
   * in with it; each is marked `joined`. Only those checked already: waiting for the checks of
   * more messages than the one in hand would leave this thread idle until the last is checked,
   * where it could be storing the first. None when `first` or one of them carries versions of
   * the space's own records (`sys.*`), which decide who may write what comes after them: those
   * are taken in one message at a time, in order. `mayJoin` says whether a message may be
   * handled as any other of the space (its `q` answers a want of this sync).
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
      if (early?.message.t !== 'vers' || early.message.s !== first.s || !early.ahead?.checked)
        break;
      if (carriesSystem(early.ahead) || !mayJoin(early.message)) break;
      pending.joined = true;
      joined.push({ message: early.message, ahead: early.ahead });
    }
    if (joined.length > 0) this.#lookAhead();
    return joined;
  }

  #lookAhead(): void {
    // Frames joined to the batch in hand are not counted: the ones after them are looked at,
    // so their checks run on the cores while that batch is stored.
    let looked = 0;
    for (const pending of this.#pending) {
      if (looked > CHECKED_AHEAD) break;
      if (pending.joined) continue;
      looked++;
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
        message.t === 'vers' && this.checks(message.s)
          ? checkAhead(message, this.space(message.s))
          : undefined;
      pending.early = { message, ahead };
    }
  }
}

const carriesSystem = (ahead: CheckedAhead) =>
  ahead.versions.some((v) => isSystemCollection(v.collection));
