/**
 * Reconciling one space with one peer (spec 05 §8 "Reconciling", §9; pacing §10): the starter
 * runs a session, a collection at a time in a set order, feeding each reply to Negentropy,
 * pushing what the peer lacks and queueing wants for what it lacks itself; the responder answers
 * each `neg` from its set alone, keeping no state between messages.
 */
import { toHex } from '../bytes.js';
import { MincaError } from '../errors.js';
import { isSystemCollection } from '../names.js';
import { Negentropy, type NegentropySnapshot } from '../negentropy/index.js';
import type { SpaceView } from '../space/space-view.js';
import type { Store } from '../store.js';
import type { Message } from './messages.js';
import { NEGENTROPY_FRAME_LIMIT } from './messages.js';
import { HEARTBEAT_MS, MAX_ROUNDS, STALE_MS } from './pacing.js';

/** People's profiles: reconciled, and asked for, with the space's own records. */
export const PROFILE_COLLECTION = 'std.profile';
const isSpacesOwn = (c: string) => isSystemCollection(c) || c === PROFILE_COLLECTION;

/** Reconciliation messages a responder answers per heartbeat: a few sessions' worth of rounds. */
const MAX_ANSWERED = 4 * MAX_ROUNDS;

/** What a space's synchroniser needs of its connection. */
export interface SyncChannel {
  /** The peer's account, proven. */
  readonly peer: string;
  /** The peer's writer key, proven. */
  readonly peerWriter: string;
  /** Whether this side starts reconciling: the smaller writer DID does. */
  readonly starter: boolean;
  send(message: Message): void;
  /**
   * Makes an answer (versions asked for, a reconciliation reply) once the connection has room
   * to send it, after the answers queued before it (spec 05 §10.1); the message being handled
   * does not wait for it.
   */
  answer(make: () => Promise<void>): void;
  /**
   * Resolves once the connection has room to send more (spec 05 §10.1): true, or false once
   * nothing more is to be sent here (the connection ended, or this space's sync was let go).
   */
  room(): Promise<boolean>;
  now(): number;
  /** A want number not used on this connection yet. */
  nextWant(): number;
  /**
   * Whether a session may start here now (spec 06 §4.1 "Sessions at once"); if not, it waits
   * its turn and the connection starts it then. Absent: always.
   */
  mayStart?(): boolean;
}

/** What reconciling needs of the space's synchroniser: where the peer stands, and moving ids. */
export interface Reconciled {
  readonly id: string;
  readonly space: SpaceView;
  /** The peer's counts per collection, from its last `hello`. */
  readonly peerCounts: ReadonlyArray<[string, number]>;
  /** The peer said, in its last `hello`, that it answers `pull`. */
  readonly peerPulls: boolean;
  /** Ids queued or asked for and not answered yet. */
  fetching(): boolean;
  /** Sends versions of `collection` the peer lacks. */
  push(ids: readonly string[], collection: string): Promise<void>;
  /** Makes an answer to the peer once the connection has room (spec 05 §10.1). */
  answer(make: () => Promise<void>): void;
  /** Queues ids to ask for; `first` puts them ahead. */
  want(ids: readonly string[], first?: boolean): void;
  /** Asks for the whole of a collection, a page at a time. */
  pull(collection: string): void;
  /** A pass over `sys.*` begins (or goes on) in this session, at `collection`. */
  systemPass(collection: string): void;
  /** `sys.*` is level with the peer's in this session: what still waits for a grant is refused. */
  systemLevel(): Promise<void>;
  /** A session this side started ended. */
  sessionEnded(): void;
}

interface Session {
  queue: string[];
  collection?: string;
  negentropy?: Negentropy;
  rounds: number;
  heard: number;
}

export class Reconciliation {
  #session: Session | undefined;
  /** Whether this side started a session here: on this sync, since the space last opened. */
  #started = false;
  /** A session was asked for while one ran, or while its wants were out: it runs once more. */
  #rerun = false;
  /** Negentropy messages answered since the last heartbeat, so a session that never ends is cut. */
  #answered = 0;
  /** Collections pulled whole: each at most once, then reconciled. */
  readonly #pulled = new Set<string>();
  /** A session has run to its end at least once. */
  reconciled = false;
  /** The space's own records (`sys.*`) are level with the peer's in the current session. */
  systemDone = false;

  constructor(
    private readonly sync: Reconciled,
    private readonly channel: SyncChannel,
  ) {}

  get running(): boolean {
    return this.#session !== undefined;
  }

  #live(): boolean {
    const session = this.#session;
    return session !== undefined && this.channel.now() - session.heard < STALE_MS;
  }

  dropIfStale(): void {
    if (this.#session && !this.#live()) this.#session = undefined;
  }

  heartbeat(): void {
    this.#answered = 0;
  }

  async start(): Promise<void> {
    // While the last session's wants are still being answered, the difference a hello shows is
    // mostly what they bring: reconciling again now would list the same ids once per hello,
    // which made a large initial sync quadratic. It runs once they are in.
    if (this.#live() || (this.reconciled && this.sync.fetching())) {
      this.#rerun = true;
      return;
    }
    if (this.channel.mayStart?.() === false) return;
    this.#rerun = false;
    this.systemDone = false;
    this.#started = true;
    this.#session = { queue: this.#collectionOrder(), rounds: 0, heard: this.channel.now() };
    await this.#nextCollection();
  }

  /** Runs the session deferred while wants were out, once they are all answered. */
  async rerunWhenFetched(): Promise<void> {
    if (this.#rerun && this.channel.starter && !this.sync.fetching() && !this.#live())
      await this.start();
  }

  /**
   * The space's own records first (`sys.*`, then profiles); then from the collection we hold
   * fewest versions of to the most. Holding nothing yet, follow the order the peer named its
   * collections in.
   */
  #collectionOrder(): string[] {
    const store = this.sync.space.store;
    const mine = store.collectionNames();
    const theirs = this.sync.peerCounts.map(([c]) => c);
    const all = [...new Set([...mine, ...theirs])];
    const system = all.filter(isSystemCollection).sort();
    if (all.includes(PROFILE_COLLECTION)) system.push(PROFILE_COLLECTION);
    const rest = all.filter((c) => !isSystemCollection(c) && c !== PROFILE_COLLECTION);
    const held = (c: string) => store.count(c);
    if (store.versionCount() === 0) {
      rest.sort((a, b) => theirs.indexOf(a) - theirs.indexOf(b));
    } else {
      rest.sort((a, b) => held(a) - held(b) || (a < b ? -1 : 1));
    }
    return [...system, ...rest];
  }

  async #nextCollection(): Promise<void> {
    const session = this.#session!;
    const collection = session.queue.shift();
    if (collection === undefined) {
      this.#session = undefined;
      await this.#systemLevel();
      this.reconciled = true;
      if (this.#rerun) await this.start();
      else this.sync.sessionEnded();
      return;
    }
    if (!isSystemCollection(collection)) await this.#systemLevel();
    else this.sync.systemPass(collection);
    if (this.#pullsWhole(collection)) {
      this.sync.pull(collection);
      // Once it is in, a session runs again: it finds what was written while it was pulled.
      this.#rerun = true;
      return this.#nextCollection();
    }
    session.collection = collection;
    session.negentropy = new Negentropy(
      syncSet(this.sync.space.store, collection),
      NEGENTROPY_FRAME_LIMIT,
    );
    this.channel.send({
      t: 'neg',
      s: this.sync.id,
      c: collection,
      m: session.negentropy.initiate() as Uint8Array,
    });
  }

  /**
   * Whether to pull `collection` whole rather than reconcile it: an app's collection this side
   * holds nothing of and the peer counts versions of, not pulled before on this connection,
   * from a peer that answers pulls (one that does not gets the Negentropy session).
   */
  #pullsWhole(collection: string): boolean {
    if (!this.sync.peerPulls || isSpacesOwn(collection) || this.#pulled.has(collection))
      return false;
    if (this.sync.space.store.count(collection) > 0) return false;
    if (!this.sync.peerCounts.some(([c, n]) => c === collection && n > 0)) return false;
    this.#pulled.add(collection);
    return true;
  }

  async onNeg(collection: string, message: Uint8Array): Promise<void> {
    if (this.channel.starter) return this.#onReply(collection, message);
    // The starter goes through sys.* first: past it, what still waits on a grant is refused.
    if (!isSystemCollection(collection)) await this.#systemLevel();
    else {
      this.systemDone = false;
      this.sync.systemPass(collection);
    }
    // The responder keeps no state between messages: each one is answered from the set alone.
    if (++this.#answered > MAX_ANSWERED) {
      throw new MincaError(
        'protocol',
        `more than ${MAX_ANSWERED} reconciliation messages in ${HEARTBEAT_MS / 1000} s`,
      );
    }
    // A reply is up to a frame: made, from the set as it is then, once there is room to send it.
    this.sync.answer(async () => {
      const responder = new Negentropy(
        syncSet(this.sync.space.store, collection),
        NEGENTROPY_FRAME_LIMIT,
      );
      const { reply } = (await responder.reconcile(message)) as { reply?: Uint8Array };
      this.channel.send({ t: 'neg', s: this.sync.id, c: collection, m: reply! });
    });
  }

  async #onReply(collection: string, message: Uint8Array): Promise<void> {
    const session = this.#session;
    // A late reply to a session given up (stale, or past its rounds) is dropped: the peer was
    // slow, not out of turn. What it would have told, a later session finds.
    if (!session || session.collection !== collection) {
      // None started here at all: it ended with the space, closed to make room while it ran
      // (this one is the space's sync since it opened again). Saying where this side stands,
      // as at a session's end, has the peer answer and a session start again now, not at the
      // next heartbeat. One given up here stays given up until then.
      if (!session && !this.#started) this.sync.sessionEnded();
      return;
    }
    session.heard = this.channel.now();
    // Past the rounds, this session is given up (not the connection, nor the other spaces):
    // what it missed is found by a later one.
    if (++session.rounds > MAX_ROUNDS) {
      this.#session = undefined;
      this.#rerun = false;
      return;
    }
    const { reply, have, need } = (await session.negentropy!.reconcile(message)) as {
      reply?: Uint8Array;
      have: Uint8Array[];
      need: Uint8Array[];
    };
    // The reply goes ahead of the versions the peer lacks: it answers while they travel and are
    // stored, rather than after. What it answers is the ranges still open, which they are not of.
    if (reply) this.channel.send({ t: 'neg', s: this.sync.id, c: collection, m: reply });
    await this.sync.push(have.map(toHex), collection);
    this.sync.want(need.map(toHex), isSpacesOwn(collection));
    if (!reply) await this.#nextCollection();
  }

  /** The space's own records are level with the peer's now: what still waits is refused. */
  async #systemLevel(): Promise<void> {
    if (this.systemDone) return;
    this.systemDone = true;
    await this.sync.systemLevel();
  }
}

/** The collection's Negentropy set as it is now: kept by the store, which hands a snapshot. */
function syncSet(store: Store, collection: string): NegentropySnapshot {
  return store.syncSet(collection);
}
