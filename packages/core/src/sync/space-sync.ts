/**
 * The synchroniser of one space shared with one peer (spec 05 §8, pacing §10): where the peer
 * stands, the Negentropy session this side runs or answers, the ids wanted and in flight,
 * versions taken in through the intake, refusals both ways, and versions waiting for a grant.
 * The counterpart of automerge-repo's `DocSynchronizer`, for a whole space. The connection
 * (`Peer`) routes a space's messages here, one at a time.
 */
import { fromHex, toHex } from '../bytes.js';
import { MincaError } from '../errors.js';
import { admit, decodeIncoming, verifyIncoming } from '../intake.js';
import { isSystemCollection } from '../names.js';
import type { SpaceView } from '../space/space-view.js';
import type { Version } from '../version.js';
import { BoundedSet } from './bounded-set.js';
import { CollectionPulls, pullPage } from './collection-pull.js';
import { type CheckedAhead, doneAhead, type EarlyVersions } from './inbox-ahead.js';
import { helloOf, type Message } from './messages.js';
import {
  MAX_IDS_PER_WANT,
  MAX_REFUSALS,
  MAX_WAITING,
  MAX_WANTS_IN_FLIGHT,
  STALE_MS,
} from './pacing.js';
import { type Reconciled, Reconciliation, type SyncChannel } from './reconciliation.js';
import { SpaceSender } from './space-sender.js';

export type { SyncChannel } from './reconciliation.js';

import type { PeerSpaceStatus } from './sync-host.js';

/** A `vers` message in its turn, and what was done with it ahead of its turn. */
interface Received {
  message: Extract<Message, { t: 'vers' }>;
  ahead?: CheckedAhead | undefined;
}

type Hello = Extract<Message, { t: 'hello' }>;

interface Want {
  ids: string[];
  at: number;
}

export class SpaceSync implements Reconciled {
  /** The peer's last fingerprint and counts per collection, from its `hello`. */
  peerPrint: Uint8Array | undefined;
  peerCounts: Array<[string, number]> = [];
  /** The peer said it answers `pull`. */
  peerPulls = false;
  readonly #wanted: string[] = [];
  /** Ids asked for once: not asked again, unless their want went stale. */
  readonly #asked = new Set<string>();
  readonly #inFlight = new Map<number, Want>();
  readonly #pulls: CollectionPulls;
  /** Versions we refused from this peer, and it refused from us: not moved again. */
  readonly #refused = new BoundedSet(MAX_REFUSALS);
  /**
   * Of those, the ones we refused because their author had no role here yet: asked again when
   * `sys.*` changes here, since the grant may have arrived after them.
   */
  readonly #ungranted = new BoundedSet(MAX_REFUSALS);
  /** The peer's last reason for refusing a version of ours, such as a host over its limits. */
  #refusedWhy: string | undefined;
  /** Versions whose author may not write by what we hold yet: the grant may be on its way. */
  readonly #waiting = new Map<string, Version>();
  readonly #reconciliation: Reconciliation;
  /** Sends versions to the peer, the key records it may lack ahead. */
  readonly #sender: SpaceSender;
  /** The starter's last hello said its session ended with nothing outstanding. */
  #peerSynced = false;
  /** The fingerprint of that hello. */
  #syncedPrint: string | undefined;
  #peerHello: Hello | undefined;
  /** The peer's wants, pulls and reconciliation messages whose answers wait for room. */
  #answering = 0;

  constructor(
    readonly space: SpaceView,
    private readonly channel: SyncChannel,
  ) {
    this.#reconciliation = new Reconciliation(this, channel);
    this.#pulls = new CollectionPulls(space.id, channel);
    this.#sender = new SpaceSender(space, channel);
  }

  get id(): string {
    return this.space.id;
  }

  /** This node's standing with the peer here. */
  status(): PeerSpaceStatus {
    const level = this.#level();
    const outstanding = this.fetching() || this.#reconciliation.running || this.#waiting.size > 0;
    // The side that answers learns from the starter's hello that its session ended.
    const reconciled = this.#reconciliation.reconciled || this.#peerSynced;
    const synced = (reconciled && !outstanding) || level;
    return {
      did: this.channel.peer,
      ...(this.channel.peerWriter !== this.channel.peer ? { writer: this.channel.peerWriter } : {}),
      synced,
      level,
      ...(this.#refusedWhy ? { refused: this.#refusedWhy } : {}),
    };
  }

  /** Whether the peer's last hello had this side's fingerprint. */
  #level(): boolean {
    return this.peerPrint !== undefined && toHex(this.peerPrint) === this.space.store.fingerprint();
  }

  /**
   * Tells the peer where this node stands: the fingerprint, and each collection's count; the
   * starter adds that it is synced, once a session ended with nothing outstanding.
   */
  hello(): void {
    this.channel.send(this.helloMessage());
  }

  /** The hello {@link hello} sends now: also what the connection repeats while the space is closed. */
  helloMessage(): Hello {
    const store = this.space.store;
    const synced =
      this.channel.starter &&
      this.#reconciliation.reconciled &&
      !this.#reconciliation.running &&
      !this.fetching() &&
      this.#waiting.size === 0;
    return helloOf(this.id, fromHex(store.fingerprint()), store.counts(), synced);
  }

  /**
   * A session runs, ids are asked for, or answers to the peer wait for room: the space stays
   * open. Versions waiting for a grant don't count: they were never stored, and a later session
   * finds them again.
   */
  busy(): boolean {
    return this.#reconciliation.running || this.fetching() || this.#answering > 0;
  }

  /**
   * Routes one message of this space; `ahead`, a `vers` message's `checkAhead`, and
   * `join`, which gives the `vers` messages right after it to take in with it.
   */
  async handle(
    m: Message,
    ahead?: CheckedAhead,
    join?: () => readonly EarlyVersions[],
  ): Promise<void> {
    switch (m.t) {
      case 'hello':
        return this.#onHello(m);
      case 'neg':
        return this.#reconciliation.onNeg(m.c, m.m);
      case 'want':
        return this.#onWant(m.q, m.i);
      case 'vers':
        return this.#onVersions({ message: m, ahead }, join);
      case 'pull':
        return this.answer(async () =>
          this.#sender.sendPage(await pullPage(this.space.store, m.c, m.a), m.q),
        );
      case 'refuse':
        this.#refused.add(toHex(m.i));
        if (m.w) this.#refusedWhy = m.w.slice(0, 500);
        return;
    }
  }

  /** The peer's last `hello` here, as this sync or the one before it (see {@link seed}) heard it. */
  get peerHello(): Hello | undefined {
    return this.#peerHello;
  }

  /**
   * Where the peer stood as the last sync of this space heard it, before the space closed: a
   * session started here (one that waited its turn) knows the peer's collections.
   */
  seed(hello: Hello): void {
    this.#peerHello = hello;
    this.peerPrint = hello.f;
    this.peerCounts = hello.c;
    this.peerPulls = hello.p === true;
  }

  /** A session that waited its turn starts: unless the peer is level with this side since. */
  async startWaited(): Promise<void> {
    if (this.#level()) return;
    await this.#reconciliation.start();
  }

  async #onHello(m: Hello): Promise<void> {
    this.seed(m);
    const print = toHex(m.f);
    // A starter synced twice at one fingerprint: what still differs is what one side refuses.
    let settled = false;
    if (!this.channel.starter) {
      this.#peerSynced = m.y === true;
      settled = m.y === true && this.#syncedPrint === print;
      this.#syncedPrint = m.y === true ? print : undefined;
    }
    if (print === this.space.store.fingerprint()) return;
    // Not level: the starter reconciles; the other side answers with where it stands, so the
    // starter learns of the difference now rather than at its next heartbeat — unless the
    // starter is settled, when answering would only start a session that finds the same.
    if (this.channel.starter) await this.#reconciliation.start();
    else if (!settled) this.hello();
  }

  /** The session just ended: the starter tells the peer, which can then say it is synced too. */
  sessionEnded(): void {
    if (!this.fetching() && this.#waiting.size === 0) this.hello();
  }

  /** The numbers of the wants and pulls asked and not answered yet. */
  wantsInFlight(): number[] {
    return [...this.#inFlight.keys(), ...this.#pulls.numbers()];
  }

  /** Ids queued or asked for, or collections pulled, and not answered yet. */
  fetching(): boolean {
    return this.#wanted.length > 0 || this.#inFlight.size > 0 || this.#pulls.size > 0;
  }

  /** Asks for the whole of `collection`, a page at a time (spec 05 §8 "Pulling"). */
  pull(collection: string): void {
    this.#pulls.start(collection);
  }

  /** Queues ids to ask for; `first` puts them ahead (sys.* and what waiting versions need). */
  want(ids: readonly string[], first = false): void {
    const fresh = ids.filter(
      (id) => !this.#asked.has(id) && !this.#refused.has(id) && !this.#holds(id),
    );
    for (const id of fresh) this.#asked.add(id);
    if (first) this.#wanted.unshift(...fresh);
    else this.#wanted.push(...fresh);
    this.#sendWants();
  }

  #holds(id: string): boolean {
    const store = this.space.store;
    return store.collectionNames().some((c) => store.hasVersion(c, id));
  }

  #sendWants(): void {
    while (this.#inFlight.size < MAX_WANTS_IN_FLIGHT && this.#wanted.length > 0) {
      const ids = this.#wanted.splice(0, MAX_IDS_PER_WANT);
      const q = this.channel.nextWant();
      this.#inFlight.set(q, { ids, at: this.channel.now() });
      this.channel.send({ t: 'want', s: this.id, q, i: ids.map(fromHex) });
    }
  }

  #onWant(q: number, ids: Uint8Array[]): void {
    this.answer(() => this.#sender.sendIds(ids.map(toHex), undefined, q));
  }

  /**
   * Makes an answer to the peer once the connection has room to send it (spec 05 §10.1); the
   * space counts as syncing until then.
   */
  answer(make: () => Promise<void>): void {
    this.#answering++;
    this.channel.answer(async () => {
      try {
        await make();
      } finally {
        this.#answering--;
      }
    });
  }

  /**
   * Sends versions of `collection` the peer lacks, unasked (the starter learns what the
   * responder needs): their collection is known, not looked for id by id.
   */
  async push(ids: readonly string[], collection: string): Promise<void> {
    const send = ids.filter((id) => !this.#refused.has(id));
    await this.#sender.sendIds(send, collection);
  }

  /** A pass over `sys.*` reached `collection` (see {@link SpaceSender.systemPass}). */
  systemPass(collection: string): void {
    this.#sender.systemPass(collection);
  }

  /** `sys.*` is level with the peer's in this session: it holds the key records held as `sys.key` began. */
  async systemLevel(): Promise<void> {
    this.#sender.systemLevel();
    await this.#recheckWaiting(true);
  }

  /**
   * A `vers` message, and with `join` those waiting right after it whose checks are over once
   * its own are, taken in together: one commit for all (spec 05 §8 "Taking versions in").
   */
  async #onVersions(first: Received, join?: () => readonly EarlyVersions[]): Promise<void> {
    const messages = [first];
    const decoded = [...this.#received(first)];
    if (first.ahead && join) {
      // Its checks first: a failure is met below. Those after it checked meanwhile join it.
      await first.ahead.verified.catch(() => {});
      for (const next of join()) {
        messages.push(next);
        decoded.push(...this.#received(next));
      }
    }
    // Checks started and bodies opened ahead stand for those versions; the rest are done here.
    const aheads = messages.flatMap((m) => (m.ahead ? [m.ahead] : []));
    const ahead = aheads.length > 0 ? await doneAhead(aheads) : undefined;
    // Any version that does not verify, is of another space or does not open ends the connection.
    const versions = await verifyIncoming(this.space, decoded, ahead);
    this.#sender.taken(versions);
    await this.#admit(versions);
    this.#sendWants();
    await this.#reconciliation.rerunWhenFetched();
  }

  /** A `vers` message's versions, decoded (ahead, or now); its answer to a want or pull noted. */
  #received({ message, ahead }: Received): readonly Version[] {
    const q = message.q;
    if (q !== undefined && !this.#inFlight.delete(q) && !this.#pulls.has(q))
      throw new MincaError('protocol', `an answer to want ${q}, which was not asked`);
    const versions = ahead?.versions ?? decodeIncoming(message.v);
    if (q !== undefined) this.#pulls.answered(q, versions);
    return versions;
  }

  /** Takes in what may be kept; a holder over its limits refuses, with its reason, and keeps what it has. */
  async #admit(versions: readonly Version[]): Promise<void> {
    if (versions.length === 0) return;
    const { taken, ungranted, refused } = await admit(this.space, versions, {
      peer: this.channel.peer,
    });
    if (refused) for (const v of refused.versions) this.#refuse(v, refused.reason);
    for (const v of ungranted) {
      if (this.#reconciliation.systemDone) this.#refuse(v);
      else this.#wait(v);
    }
    this.#wantEarlier(taken);
    if (taken.some((v) => isSystemCollection(v.collection))) await this.#recheckWaiting(false);
  }

  /** Refuses a version; without `why`, because its author has no role here by what we hold. */
  #refuse(version: Version, why?: string): void {
    this.#refused.add(version.id);
    if (why === undefined) this.#ungranted.add(version.id);
    this.channel.send({
      t: 'refuse',
      s: this.id,
      i: fromHex(version.id),
      w: why ?? `${version.author} may not write in this space`,
    });
  }

  /** Asks again for what was refused for want of a grant: what still lacks one is refused again. */
  askUngranted(): void {
    const ids = this.#ungranted.take();
    for (const id of ids) {
      this.#refused.delete(id);
      this.#asked.delete(id);
    }
    if (ids.length > 0) this.want(ids);
  }

  #wait(version: Version): void {
    this.#waiting.set(version.id, version);
    if (this.#waiting.size > MAX_WAITING) this.#waiting.delete(this.#waiting.keys().next().value!);
  }

  /** Takes in the waiting versions whose author may now write; with `final`, refuses the rest. */
  async #recheckWaiting(final: boolean): Promise<void> {
    const waiting = [...this.#waiting.values()];
    if (final) this.#waiting.clear();
    if (waiting.length === 0) return;
    const { taken, ungranted, refused } = await admit(this.space, waiting, {
      peer: this.channel.peer,
    });
    for (const v of taken) this.#waiting.delete(v.id);
    for (const v of refused?.versions ?? []) {
      this.#waiting.delete(v.id);
      this.#refuse(v, refused!.reason);
    }
    if (final) for (const v of ungranted) this.#refuse(v);
    this.#wantEarlier(taken);
  }

  /** Asks for what newly taken versions supersede and this node lacks, ahead of the rest. */
  #wantEarlier(taken: readonly Version[]): void {
    const earlier = taken.flatMap((v) => v.supersedes).filter((id) => !this.#holds(id));
    if (earlier.length > 0) this.want(earlier, true);
  }

  /** Heartbeat: drops the session and wants gone stale, sends what is queued, says hello. */
  tick(): void {
    const now = this.channel.now();
    this.#reconciliation.dropIfStale();
    this.#pulls.dropStale();
    for (const [q, want] of this.#inFlight) {
      if (now - want.at < STALE_MS) continue;
      this.#inFlight.delete(q);
      // Found again by a later session, so they may be asked again.
      for (const wanted of want.ids) this.#asked.delete(wanted);
    }
    this.#reconciliation.heartbeat();
    this.#sendWants();
    this.hello();
  }

  /** Runs the session deferred while wants were out, once they are all answered. */
  rerunWhenFetched(): Promise<void> {
    return this.#reconciliation.rerunWhenFetched();
  }
}
