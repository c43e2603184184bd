/**
 * One connection to a peer: the handshake, then the messages of each shared space routed to its
 * synchroniser ({@link SpaceSync}), the spaces named both ways ({@link SpaceOffers}) and the file
 * requests ({@link PeerFileChannel}). Messages are handled one at a time, in order. A peer that
 * breaks the protocol ends this connection with a reason; the node and its other peers go on.
 * Spec 05 §8, pacing §10.
 */
import { toHex } from '../bytes.js';
import { isMincaError, MincaError } from '../errors.js';
import type { FileChannel } from '../files/file-channel.js';
import type { SpaceView } from '../space/space-view.js';
import { clearRepeating, clearTimer, setRepeating, setTimer } from '../timers.js';
import { BoundedSet } from './bounded-set.js';
import { ConnectionBudget } from './budget.js';
import { PeerFileChannel } from './file-channel.js';
import { type CheckedAhead, type Early, type EarlyVersions, InboxAhead } from './inbox-ahead.js';
import { decodeMessage, encodeMessage, type Message } from './messages.js';
import { HEARTBEAT_MS, HELLO_AFTER_TAKE_IN_MS, REOFFER_AFTER_MS } from './pacing.js';
import { PeerAuth } from './peer-auth.js';
import { PeerInbox } from './peer-inbox.js';
import { PeerOutbox } from './peer-outbox.js';
import { RestingSpaces } from './resting-spaces.js';
import { SpaceOffers } from './space-offers.js';
import { SpaceSync } from './space-sync.js';
import type { PeerSpaceStatus, SyncHost } from './sync-host.js';
import type { Transport } from './transport.js';

export type { PeerSpaceStatus } from './sync-host.js';

/** Wants of closed spaces' syncs remembered per connection (4 in flight per space). */
const MAX_ORPHAN_WANTS = 4_096;

/** Connections made in this process: each one's session slots are known by its number. */
let connections = 0;

export class Peer {
  /** The peer's account, once its key and certificates are proven. */
  did: string | undefined;
  /** The peer's writer key, once proven. */
  writer: string | undefined;
  /** Why the connection ended, once it has. */
  endReason: string | undefined;
  /** The file requests of this connection, as the node's files see it. */
  readonly files: FileChannel;
  readonly #fileChannel: PeerFileChannel;
  /** The spaces shared with the peer; those open here have a sync in `#syncs`. */
  readonly #linked = new Set<string>();
  readonly #syncs = new Map<string, SpaceSync>();
  /** Shared spaces closed here: a message for one opens it again, unless a hello is enough. */
  readonly #resting: RestingSpaces;
  /** The space whose message (or work) is being handled now: it stays open meanwhile. */
  #handling: string | undefined;
  /**
   * Wants of syncs that let go of their space before the answer came: the answer is taken as
   * versions sent unasked, not as a want never asked. Up to a bound, oldest forgotten first.
   */
  readonly #orphanWants = new BoundedSet(MAX_ORPHAN_WANTS);
  #offers: SpaceOffers | undefined;
  /** A reoffer is due, or queued and not started: another asked for meanwhile is the same one. */
  #reofferTimer: unknown;
  #reofferQueued = false;
  readonly #auth: PeerAuth;
  /** This connection's number, which its session slots go by (spec 06 §4.1). */
  readonly #serial = connections++;
  #nextWant = 0;
  #heartbeat: unknown;
  #helloTimer: unknown;
  readonly #pendingHello = new Set<string>();
  #closed = false;
  readonly #endListeners = new Set<(reason: string) => void>();
  /** Messages are handled one at a time, in order; so is work timers start. */
  readonly #inbox: PeerInbox;
  /** Answers wait here for room to be sent (spec 05 §10.1). */
  readonly #outbox: PeerOutbox;
  readonly #ahead = new InboxAhead(
    (space) => !this.#closed && !!this.did && this.#linked.has(space),
    (space) => this.#syncs.get(space)?.space,
  );
  readonly #budget: ConnectionBudget;

  constructor(
    private readonly host: SyncHost,
    private readonly transport: Transport,
  ) {
    const peer = this;
    this.#fileChannel = new PeerFileChannel(
      {
        get did() {
          return peer.did;
        },
        get closed() {
          return peer.#closed;
        },
        shares: (space) => this.#linked.has(space),
        send: (m) => this.#send(m),
        room: () => this.#outbox.room(),
        close: (reason) => this.close(reason),
      },
      host.files,
    );
    this.files = this.#fileChannel;
    this.#budget = new ConnectionBudget(() => host.now());
    this.#auth = new PeerAuth(host, (m) => this.#send(m));
    this.#resting = new RestingSpaces(host, {
      get starter() {
        return peer.#starter;
      },
      send: (m) => this.#send(m),
      takeSlot: (id) => this.#takeSlot(id),
    });
    this.#inbox = new PeerInbox(transport, this.#budget, this.#ahead, {
      get closed() {
        return peer.#closed;
      },
      receive: (frame, early) => this.#receive(frame, early),
      close: (reason) => this.close(reason),
    });
    this.#outbox = new PeerOutbox(transport, {
      get closed() {
        return peer.#closed;
      },
      now: () => host.now(),
      close: (reason) => this.close(reason),
    });
    transport.onClose = (reason) => this.#finish(reason ?? 'the transport closed');
    this.#send(this.#auth.hi());
    this.#heartbeat = setRepeating(() => this.#tick(), HEARTBEAT_MS);
  }

  /** Calls `listener` once, with the reason, when the connection ends. Returns the unsubscribe. */
  onEnd(listener: (reason: string) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /** This node's standing with the peer in `space`, once they share it. */
  status(space: string): PeerSpaceStatus | undefined {
    if (!this.did) return undefined;
    return this.#syncs.get(space)?.status() ?? this.#resting.status(space);
  }

  /** Space ids shared with this peer. */
  spaces(): string[] {
    return [...this.#linked];
  }

  /**
   * Space `id` is closing here: its sync lets go of it now (before the store closes), keeping
   * only its last hello, which the heartbeat repeats. The peer's next message opens it again.
   */
  rest(id: string): void {
    const sync = this.#syncs.get(id);
    if (!sync) return;
    this.#syncs.delete(id);
    this.#resting.rest(id, sync.helloMessage(), sync.status(), sync.peerHello);
    for (const q of sync.wantsInFlight()) this.#orphanWants.add(String(q));
    // Its session ended with the space; one waiting its turn keeps its place.
    this.host.sessions?.ended(this.#serial, id);
  }

  /**
   * How this connection uses space `id` now: `pinned`, a message of it is being handled;
   * `syncing`, a session or a want is under way.
   */
  busy(id: string): 'pinned' | 'syncing' | undefined {
    if (this.#handling === id) return 'pinned';
    return this.#syncs.get(id)?.busy() ? 'syncing' : undefined;
  }

  /**
   * The spaces we proved to the peer, a holder, that it refused to hold, each with its reason
   * (spec 05 §8 `spaces.r`): a host without a subscription for the account, or over its limits.
   */
  refusedSpaces(): ReadonlyMap<string, string> {
    return this.#offers?.refused ?? new Map();
  }

  /** Tells the peer, soon, where we are in `space` (after taking in, or writing). */
  helloSoon(space: string): void {
    if (!this.#linked.has(space) || this.#closed) return;
    this.#pendingHello.add(space);
    this.#helloTimer ??= setTimer(() => {
      this.#helloTimer = undefined;
      const spaces = [...this.#pendingHello];
      this.#pendingHello.clear();
      for (const s of spaces) {
        const sync = this.#syncs.get(s);
        if (sync) sync.hello();
        // Closed since it changed: it says hello as it closed, without opening again.
        else if (!this.#resting.sayClosed(s))
          this.#inbox.enqueue(() => this.#inSpace(s, async (opened) => opened.hello()));
      }
    }, HELLO_AFTER_TAKE_IN_MS);
  }

  /**
   * Membership here changed: names spaces shared since the handshake, and asks again for the
   * versions refused for want of a grant, which may have just arrived.
   */
  reoffer(): void {
    if (!this.did || this.#closed) return;
    // Each brings every space up to date, so changes close together (a holder taking in many
    // spaces, each one asking) are one reoffer, not one a space over all of them.
    this.#reofferTimer ??= setTimer(() => {
      this.#reofferTimer = undefined;
      if (this.#reofferQueued) return;
      this.#reofferQueued = true;
      this.#inbox.enqueue(async () => {
        this.#reofferQueued = false;
        await this.#offers!.reoffer();
        for (const sync of this.#syncs.values()) sync.askUngranted();
      });
    }, REOFFER_AFTER_MS);
  }

  close(reason = 'closed'): void {
    if (this.#closed) return;
    if (!this.transport.closed) {
      try {
        this.transport.send(encodeMessage({ t: 'bye', w: reason }));
      } catch {
        // The transport is going anyway.
      }
    }
    this.transport.close(reason);
    this.#finish(reason);
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.endReason = reason;
    clearRepeating(this.#heartbeat);
    if (this.#helloTimer !== undefined) clearTimer(this.#helloTimer);
    if (this.#reofferTimer !== undefined) clearTimer(this.#reofferTimer);
    this.host.sessions?.dropConnection(this.#serial);
    this.#fileChannel.ended(reason);
    for (const listener of [...this.#endListeners]) listener(reason);
  }

  #send(message: Message): void {
    if (this.#closed || this.transport.closed) return;
    this.transport.send(encodeMessage(message));
  }

  async #receive(frame: Uint8Array, early?: Early): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#handle(early?.message ?? decodeMessage(frame), frame.length, early?.ahead);
    } catch (error) {
      // A peer that breaks the protocol loses this connection, never the node.
      const why = isMincaError(error) ? error.message : `internal error: ${String(error)}`;
      this.close(why);
    }
  }

  async #handle(m: Message, bytes: number, ahead?: CheckedAhead): Promise<void> {
    if (m.t === 'bye') {
      this.transport.close(m.w);
      this.#finish(`peer left: ${m.w}`);
      return;
    }
    if (m.t === 'hi' || m.t === 'auth') {
      this.#budget.idle(bytes);
      return m.t === 'hi' ? this.#auth.onHi(m) : this.#onAuth(m);
    }
    if (!this.did) throw new MincaError('protocol', `${m.t} before the handshake`);
    if (m.t === 'spaces') {
      this.#budget.spaces(bytes);
      return this.#offers!.onSpaces(m.s, m.a ?? [], m.p ?? [], m.m ?? [], m.r ?? []);
    }
    // A space we don't share with this peer: not ours to answer, and counted as idle.
    if (!this.#linked.has(m.s)) return this.#budget.idle(bytes);
    // Closed here, and the peer is level with it as it closed: nothing to open it for.
    if (m.t === 'hello' && this.#resting.onHello(m.s, m)) return;
    // The answer to a want of a sync that let go of its space: versions, as if sent unasked.
    if (m.t === 'vers' && m.q !== undefined && this.#orphanWants.has(String(m.q))) {
      this.#orphanWants.delete(String(m.q));
      const { q: _, ...unasked } = m;
      return this.#route(unasked, ahead);
    }
    if (m.t === 'vers') {
      // Those next in line, asked for here or unasked, may be taken in with it, in one commit.
      const join = () =>
        this.#ahead.joinVersions(
          m,
          ahead,
          (next) => next.q === undefined || !this.#orphanWants.has(String(next.q)),
        );
      return this.#route(m, ahead, join);
    }
    return this.#route(m, ahead);
  }

  /**
   * Takes a session slot in space `id` for this connection: false when the session waits for
   * one (it starts once it has it), true without slots.
   */
  #takeSlot(id: string): boolean {
    return this.host.sessions?.take(this.#serial, id, () => this.#startWaited(id)) ?? true;
  }

  /** Whether this side starts reconciling: the smaller writer DID does. */
  get #starter(): boolean {
    return this.host.did < this.writer!;
  }

  /** A message of a shared space, to its sync (opening the space again when it closed). */
  #route(
    m: Exclude<Message, { t: 'hi' | 'auth' | 'bye' | 'spaces' }>,
    ahead?: CheckedAhead,
    join?: () => readonly EarlyVersions[],
  ): Promise<void> {
    return this.#inSpace(m.s, async (sync) => {
      // A hello level with this side is a heartbeat: it doesn't keep the space from idling.
      const level = m.t === 'hello' && toHex(m.f) === sync.space.store.fingerprint();
      if (!level) this.host.used?.(m.s);
      if (m.t === 'fwant') return this.#fileChannel.onWant(m);
      if (m.t === 'fdata') return this.#fileChannel.onData(m);
      return sync.handle(m, ahead, join);
    });
  }

  /**
   * Runs `work` with the sync of shared space `id`, opening the space again first when it
   * closed for being idle; the space stays open until `work` ends.
   */
  async #inSpace(id: string, work: (sync: SpaceSync) => Promise<void>): Promise<void> {
    const before = this.#handling;
    this.#handling = id;
    try {
      let sync = this.#syncs.get(id);
      if (!sync) {
        const space = await this.host.space(id).catch((error) => {
          // Let go of here since it closed (a holder's release): no longer shared.
          if (this.#resting.has(id) && isMincaError(error) && error.code === 'unknown_space')
            return undefined;
          throw error;
        });
        if (!space) {
          this.#linked.delete(id);
          this.#resting.delete(id);
          return;
        }
        if (this.#closed) return;
        sync = this.#syncs.get(id) ?? this.#attach(space);
      }
      await work(sync);
    } finally {
      this.#handling = before;
      this.#settle(id);
    }
  }

  /** Gives back space `id`'s session slot once nothing there needs it; forgets it when no longer shared. */
  #settle(id: string): void {
    const slots = this.host.sessions;
    if (!slots) return;
    if (this.#closed || !this.#linked.has(id)) slots.drop(this.#serial, id);
    else if (this.#syncs.get(id)?.busy() === false) slots.ended(this.#serial, id);
  }

  /** Space `id`'s session has a slot now, after waiting: it starts, the space opened again if closed. */
  #startWaited(id: string): void {
    if (this.#closed || !this.#linked.has(id)) this.host.sessions?.drop(this.#serial, id);
    else this.#inbox.enqueue(() => this.#inSpace(id, (sync) => sync.startWaited()));
  }

  /** A sync for shared space `space`, just opened (again). */
  #attach(space: SpaceView): SpaceSync {
    const sync: SpaceSync = new SpaceSync(space, {
      peer: this.did!,
      peerWriter: this.writer!,
      starter: this.#starter,
      send: (message) => this.#send(message),
      ...this.#outbox.forSpace(() => this.#syncs.get(space.id) === sync),
      now: () => this.host.now(),
      nextWant: () => this.#nextWant++,
      mayStart: () => this.#takeSlot(space.id),
    });
    const peerHello = this.#resting.peerHello(space.id);
    if (peerHello) sync.seed(peerHello);
    this.#syncs.set(space.id, sync);
    this.#resting.delete(space.id);
    return sync;
  }

  async #onAuth(m: Extract<Message, { t: 'auth' }>): Promise<void> {
    const { did, writer, nonce, spaces } = await this.#auth.onAuth(m);
    this.writer = writer;
    this.did = did;
    const peer = this;
    this.#offers = new SpaceOffers(this.host, {
      peer: did,
      peerWriter: writer,
      ...(spaces ? { limit: spaces } : {}),
      nonce: this.#auth.nonce,
      peerNonce: nonce,
      send: (message) => this.#send(message),
      link: (ids) => this.#link(ids),
      get linked() {
        return peer.#syncs.size;
      },
      budget: this.#budget,
    });
    await this.#offers.offer();
  }

  /** Shares the spaces of `offered` this node may now share with the peer, and says hello in each. */
  async #link(offered: readonly string[]): Promise<void> {
    const pending = offered.filter((id) => !this.#linked.has(id));
    if (pending.length === 0) return;
    const mine = await this.#offers!.shareable();
    for (const id of pending) {
      if (!mine.has(id) || this.#linked.has(id)) continue;
      // Closed here: hello with where it closed, and it rests as if it closed since.
      const writer = this.writer !== this.did ? { writer: this.writer! } : {};
      const status = { did: this.did!, ...writer, synced: false, level: false };
      if (!this.#syncs.has(id) && this.#resting.restClosed(id, status)) this.#linked.add(id);
      else
        await this.#inSpace(id, async (sync) => {
          this.#linked.add(id);
          sync.hello();
        });
      if (this.#linked.has(id)) this.host.files?.linked(this.files, id);
    }
  }

  /** Heartbeat: a hello per shared space (a closed one's last); drop what went stale. */
  #tick(): void {
    for (const [id, sync] of this.#syncs) {
      sync.tick();
      // A session gone stale no longer needs its slot.
      this.#settle(id);
      // Unless the space closed meanwhile: its session ended with it.
      this.#inbox.enqueue(async () => {
        if (this.#syncs.get(id) === sync) await sync.rerunWhenFetched();
      });
    }
    this.#resting.repeat();
  }
}
