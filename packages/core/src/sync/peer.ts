/**
 * One connection to a peer: the handshake, then the messages of each shared space routed to its
 * synchroniser ({@link SpaceSync}), the spaces named both ways ({@link SpaceOffers}) and the file
 * requests ({@link PeerFileChannel}). Messages are handled one at a time, in order. A peer that
 * breaks the protocol ends this connection with a reason; the node and its other peers go on.
 * Spec 05 §8, pacing §10.
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { isMincaError, MincaError } from '../errors.js';
import type { FileChannel } from '../files/file-channel.js';
import { verifyChain } from '../identity/writer-chain.js';
import { verifySignature } from '../keys.js';
import { clearRepeating, clearTimer, setRepeating, setTimer } from '../timers.js';
import { ConnectionBudget } from './budget.js';
import { PeerFileChannel } from './file-channel.js';
import { handshakeBytes } from './handshake.js';
import { decodeMessage, encodeMessage, type Message, PROTOCOL_VERSION } from './messages.js';
import { HEARTBEAT_MS, HELLO_AFTER_TAKE_IN_MS } from './pacing.js';
import { SpaceOffers } from './space-offers.js';
import { type CheckedAhead, SpaceSync } from './space-sync.js';
import type { PeerSpaceStatus, SyncHost } from './sync-host.js';
import type { Transport } from './transport.js';

export type { PeerSpaceStatus } from './sync-host.js';

/**
 * Frames after the one being handled that are decoded, and whose versions' signature checks are
 * started, ahead of their turn: verifying runs on the cores while a message is stored. Bounded,
 * as each holds up to `MAX_VERSIONS_PER_MESSAGE` decoded versions.
 */
const CHECKED_AHEAD = 2;

/** A frame received and not handled yet, and what was done with it ahead of its turn. */
interface Pending {
  frame: Uint8Array;
  early?: { message: Message; ahead?: CheckedAhead | undefined } | undefined;
  started?: true;
}

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
  readonly #syncs = new Map<string, SpaceSync>();
  #offers: SpaceOffers | undefined;
  readonly #nonce = randomBytes(32);
  #claimed: { did: string; nonce: Uint8Array } | undefined;
  #authSent = false;
  #nextWant = 0;
  #heartbeat: unknown;
  #helloTimer: unknown;
  readonly #pendingHello = new Set<string>();
  #closed = false;
  readonly #endListeners = new Set<(reason: string) => void>();
  /** Messages are handled one at a time, in order; so is work timers start. */
  #inbox: Promise<void> = Promise.resolve();
  /** The frames queued in the inbox, in order; the first few are checked ahead. */
  readonly #pending: Pending[] = [];
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
        shares: (space) => this.#syncs.has(space),
        send: (m) => this.#send(m),
        close: (reason) => this.close(reason),
      },
      host.files,
    );
    this.files = this.#fileChannel;
    this.#budget = new ConnectionBudget(() => host.now());
    transport.onMessage = (frame) => {
      if (this.#closed) return;
      try {
        this.#budget.received(frame.length);
      } catch (error) {
        this.close((error as Error).message);
        return;
      }
      const pending: Pending = { frame };
      this.#pending.push(pending);
      this.#checkAhead();
      this.#inbox = this.#inbox.then(async () => {
        this.#pending.shift();
        this.#checkAhead();
        try {
          await this.#receive(frame, pending.early);
        } finally {
          this.#budget.handled(frame.length);
        }
      });
    };
    transport.onClose = (reason) => this.#finish(reason ?? 'the transport closed');
    this.#send({ t: 'hi', v: PROTOCOL_VERSION, d: host.did, n: this.#nonce });
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
    return this.#syncs.get(space)?.status();
  }

  /** Space ids shared with this peer. */
  spaces(): string[] {
    return [...this.#syncs.keys()];
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
    if (!this.#syncs.has(space) || this.#closed) return;
    this.#pendingHello.add(space);
    this.#helloTimer ??= setTimer(() => {
      this.#helloTimer = undefined;
      const spaces = [...this.#pendingHello];
      this.#pendingHello.clear();
      for (const s of spaces) this.#syncs.get(s)?.hello();
    }, HELLO_AFTER_TAKE_IN_MS);
  }

  /**
   * Membership here changed: names spaces shared since the handshake, and asks again for the
   * versions refused for want of a grant, which may have just arrived.
   */
  reoffer(): void {
    if (!this.did || this.#closed) return;
    this.#enqueue(async () => {
      await this.#offers!.reoffer();
      for (const sync of this.#syncs.values()) sync.askUngranted();
    });
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
    this.#fileChannel.ended(reason);
    for (const listener of [...this.#endListeners]) listener(reason);
  }

  #send(message: Message): void {
    if (this.#closed || this.transport.closed) return;
    this.transport.send(encodeMessage(message));
  }

  /** Runs `work` after the messages and work queued before it; what it throws ends the connection. */
  #enqueue(work: () => Promise<void>): void {
    this.#inbox = this.#inbox.then(work).catch((error) => this.close(String(error)));
  }

  /** Decodes the next few frames and starts their versions' checks (see {@link CHECKED_AHEAD}). */
  #checkAhead(): void {
    const upTo = Math.min(CHECKED_AHEAD + 1, this.#pending.length);
    for (let i = 0; i < upTo; i++) {
      const pending = this.#pending[i]!;
      if (pending.started || this.#closed) continue;
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
          message.t === 'vers' && this.did && this.#syncs.has(message.s)
            ? SpaceSync.checkAhead(message)
            : undefined,
      };
    }
  }

  async #receive(frame: Uint8Array, early?: Pending['early']): Promise<void> {
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
      return m.t === 'hi' ? this.#onHi(m) : this.#onAuth(m);
    }
    if (!this.did) throw new MincaError('protocol', `${m.t} before the handshake`);
    if (m.t === 'spaces') {
      this.#budget.spaces();
      return this.#offers!.onSpaces(m.s, m.a ?? [], m.p ?? [], m.m ?? [], m.r ?? []);
    }
    // A space we don't share with this peer: not ours to answer, and counted as idle.
    if (!this.#syncs.has(m.s)) return this.#budget.idle(bytes);
    if (m.t === 'fwant') return this.#fileChannel.onWant(m);
    if (m.t === 'fdata') return this.#fileChannel.onData(m);
    return this.#syncs.get(m.s)!.handle(m, ahead);
  }

  async #onHi(m: Extract<Message, { t: 'hi' }>): Promise<void> {
    if (this.#claimed) throw new MincaError('protocol', 'a second hi');
    if (m.v !== PROTOCOL_VERSION)
      throw new MincaError('protocol', `protocol version ${m.v} is not ${PROTOCOL_VERSION}`);
    if (m.d === this.host.did) throw new MincaError('protocol', 'the peer claims to be this node');
    this.#claimed = { did: m.d, nonce: m.n };
    const chain = this.host.chain;
    this.#send({
      t: 'auth',
      g: await this.host.sign(handshakeBytes(this.host.did, m.d, m.n, this.#nonce)),
      ...(chain.length > 0 ? { c: [...chain] } : {}),
    });
    this.#authSent = true;
  }

  async #onAuth(m: Extract<Message, { t: 'auth' }>): Promise<void> {
    if (!this.#claimed || !this.#authSent || this.did)
      throw new MincaError('protocol', 'auth out of turn');
    const { did: writer, nonce } = this.#claimed;
    if (
      !(await verifySignature(
        writer,
        handshakeBytes(writer, this.host.did, this.#nonce, nonce),
        m.g,
      ))
    )
      throw new MincaError('protocol', 'the peer did not prove its key');
    const identity = await verifyChain(writer, m.c ?? []).catch((cause) => {
      throw new MincaError('protocol', `the peer's certificates do not hold`, { cause });
    });
    // A revoked key still talks, but for nobody: it is a member of nothing.
    const revoked = async (subject: string | undefined) =>
      subject !== undefined && (await this.host.revoked?.(subject, identity.account)) === true;
    const did =
      (await revoked(writer)) || (await revoked(identity.device)) ? writer : identity.account;
    this.writer = writer;
    this.did = did;
    const peer = this;
    this.#offers = new SpaceOffers(this.host, {
      peer: did,
      peerWriter: writer,
      ...(identity.spaces ? { limit: identity.spaces } : {}),
      nonce: this.#nonce,
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
    const pending = offered.filter((id) => !this.#syncs.has(id));
    if (pending.length === 0) return;
    const mine = await this.#offers!.shareable();
    const did = this.did!;
    for (const id of pending) {
      if (!mine.has(id) || this.#syncs.has(id)) continue;
      const sync = new SpaceSync(await this.host.space(id), {
        peer: did,
        peerWriter: this.writer!,
        starter: this.host.did < this.writer!,
        send: (message) => this.#send(message),
        now: () => this.host.now(),
        nextWant: () => this.#nextWant++,
      });
      this.#syncs.set(id, sync);
      sync.hello();
      this.host.files?.linked(this.files, id);
    }
  }

  /** Heartbeat: a hello per shared space; drop what went stale. */
  #tick(): void {
    for (const sync of this.#syncs.values()) {
      sync.tick();
      this.#enqueue(() => sync.rerunWhenFetched());
    }
  }
}
