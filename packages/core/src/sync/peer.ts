/**
 * One connection to a peer: the handshake, then per shared space hellos, Negentropy sessions,
 * wants and versions. A peer that breaks the protocol ends this connection with a reason; the
 * node and its other peers go on. Spec 05 §8, pacing §10.
 */
import { randomBytes } from '@noble/ciphers/utils.js';
import { fromHex, toHex } from '../bytes.js';
import { encodeCbor } from '../encoding.js';
import { isMincaError, MincaError } from '../errors.js';
import { accessProofBytes } from '../hosting/access-key.js';
import { type SigningKey, verifySignature } from '../keys.js';
import { isSystemCollection } from '../names.js';
import { Negentropy, type NegentropySnapshot } from '../negentropy/index.js';
import type { Store } from '../store.js';
import { clearRepeating, clearTimer, setRepeating, setTimer } from '../timers.js';
import { decodeVerifiedVersion, decodeVersion, type Version, verifyVersion } from '../version.js';
import {
  decodeMessage,
  encodeMessage,
  MAX_FRAME_BYTES,
  MAX_VERSIONS_PER_MESSAGE,
  type Message,
  NEGENTROPY_FRAME_LIMIT,
  PROTOCOL_VERSION,
} from './messages.js';
import {
  HEARTBEAT_MS,
  HELLO_AFTER_TAKE_IN_MS,
  MAX_IDS_PER_WANT,
  MAX_REFUSALS,
  MAX_ROUNDS,
  MAX_WAITING,
  MAX_WANTS_IN_FLIGHT,
  STALE_MS,
} from './pacing.js';
import type { Transport } from './transport.js';

/**
 * A space as sync sees it: an open space with its key, or one held without it (a host's or
 * carrier's, spec 05 §7.3), which can't open bodies or judge roles.
 */
export interface SyncSpace {
  readonly id: string;
  readonly store: Store;
  /** Whether a version's sealed body opens under the space key (true where there is no key). */
  opens(version: Version): boolean;
  /** Whether a verified version from outside may be kept. */
  mayTakeIn(version: Version): Promise<boolean>;
  /** Stores verified versions; returns those that were new. */
  takeIn(versions: readonly Version[]): Promise<Version[]>;
  /** Whether `version` is one of the credentials `did` may show here (spec 05 §8). */
  isCredentialOf(version: Version, did: string): boolean;
  /**
   * Held without the key (spec 05 §7.3): roles can't be judged here, so credentials are not
   * taken in; versions come only by sync, from peers that proved the space.
   */
  readonly keyless?: boolean;
  /** A reason to refuse these versions from `peer` (a holder over its limits), or nothing. */
  refusal?(peer: string, versions: readonly Version[]): Promise<string | undefined>;
}

/** A space a peer names with its access proof (spec 05 §7.3), once the proof verified. */
export interface ProvenSpace {
  space: string;
  /** The access DID the proof verified under. */
  access: string;
}

/** What a holder answers to proven spaces: those it holds for this peer, and why not the rest. */
export interface Admission {
  admitted: string[];
  refused: Array<{ space: string; reason: string }>;
}

/** What a peer connection needs of its node. */
export interface SyncHost {
  readonly did: string;
  sign(message: Uint8Array): Promise<Uint8Array>;
  /** The spaces this node would sync with `did`: those it holds that `did` may read. */
  spacesFor(did: string): Promise<string[]>;
  /** The versions giving this node its role in each of `spaces`, as bytes. */
  credentials(spaces: readonly string[]): Promise<Uint8Array[]>;
  /** Every space this node holds. */
  spacesHeld(): Promise<string[]>;
  space(id: string): Promise<SyncSpace>;
  now(): number;
  /**
   * The space's access key, when `did` may hold `space` without its key (a host or carrier the
   * owner allows): this node proves the space to it with the key (spec 05 §7.3).
   */
  accessKey?(space: string, did: string): Promise<SigningKey | undefined>;
  /** A holder: which spaces `did` proved it holds this node keeps for it (spec 05 §7.3). */
  admit?(did: string, proven: readonly ProvenSpace[]): Promise<Admission>;
  /** Files: told when a space becomes shared with a peer, and answers its requests (§16.6). */
  files?: PeerFileHooks;
}

/** A request for parts of a file, and its answer (the `fwant` and `fdata` messages). */
export interface FileAsk {
  /** File id, hex. */
  id: string;
  list: boolean;
  chunks: number[];
}
export interface FileAnswer {
  list?: Uint8Array;
  chunks: Array<Uint8Array | null>;
}

export interface PeerFileHooks {
  linked(peer: Peer, space: string): void;
  serve(space: string, ask: FileAsk, from: Peer): Promise<FileAnswer>;
}

/** How this node stands with one peer in one space. */
export interface PeerSpaceStatus {
  did: string;
  /** A reconciliation finished and nothing asked of the peer is outstanding. */
  synced: boolean;
  /** Both hold exactly the same versions: the fingerprints are equal. */
  level: boolean;
  /** Why the peer last refused a version of ours (a holder over its limits), if it did. */
  refused?: string;
}

interface Session {
  queue: string[];
  collection?: string;
  negentropy?: Negentropy;
  rounds: number;
  heard: number;
}

interface Want {
  ids: string[];
  at: number;
}

/** A set that forgets its oldest member past `max`. */
class BoundedSet {
  readonly #items = new Set<string>();
  constructor(private readonly max: number) {}
  has(id: string): boolean {
    return this.#items.has(id);
  }
  add(id: string): void {
    this.#items.delete(id);
    this.#items.add(id);
    if (this.#items.size > this.max) this.#items.delete(this.#items.values().next().value!);
  }
  delete(id: string): void {
    this.#items.delete(id);
  }
  /** Empties the set, returning what it held, oldest first. */
  take(): string[] {
    const items = [...this.#items];
    this.#items.clear();
    return items;
  }
}

/** Per shared space: what we know of the peer there, and what is in flight. */
class Link {
  peerPrint: Uint8Array | undefined;
  peerCounts: Array<[string, number]> = [];
  session: Session | undefined;
  rerun = false;
  /** Negentropy messages answered since the last heartbeat, so a session that never ends is cut. */
  answered = 0;
  readonly wanted: string[] = [];
  /** Ids asked for once: not asked again, unless their want went stale. */
  readonly asked = new Set<string>();
  readonly inFlight = new Map<number, Want>();
  /** Versions we refused from this peer, and it refused from us: not moved again. */
  readonly refused = new BoundedSet(MAX_REFUSALS);
  /**
   * Of those, the ones we refused because their author had no role here yet: asked again when
   * `sys.*` changes here, since the grant may have arrived after them.
   */
  readonly ungranted = new BoundedSet(MAX_REFUSALS);
  /** The peer's last reason for refusing a version of ours, such as a host over its limits. */
  refusedWhy: string | undefined;
  reconciled = false;
  /** The space's own records (`sys.*`) are level with the peer's in the current session. */
  systemDone = false;
  /** Versions whose author may not write by what we hold yet: the grant may be on its way. */
  readonly waiting = new Map<string, Version>();
  constructor(readonly space: SyncSpace) {}
}

const HANDSHAKE_CONTEXT = 'minca/handshake/v1';
/** Credentials one `spaces` message carries. */
const MAX_CREDENTIALS = 256;
/** Reconciliation messages a responder answers per heartbeat: a few sessions' worth of rounds. */
const MAX_ANSWERED = 4 * MAX_ROUNDS;
/** Spaces a peer named that we remember, to link once we hold them. */
const MAX_PEER_OFFERED = 10_000;
/** File requests from one peer waiting to be answered; past this the connection ends. */
const MAX_FILE_REQUESTS_QUEUED = 16;

export class Peer {
  /** The peer's DID, once proven. */
  did: string | undefined;
  readonly #links = new Map<string, Link>();
  readonly #nonce = randomBytes(32);
  #claimed: { did: string; nonce: Uint8Array } | undefined;
  #authSent = false;
  /** Spaces we named to the peer so far, each with how many credentials went with it. */
  readonly #offered = new Map<string, number>();
  /** Spaces the peer named to us, linked or not: one we couldn't share yet may be later. */
  readonly #peerOffered = new Set<string>();
  /** Spaces the peer proved it holds and this node, a holder, keeps for it. */
  readonly #admitted = new Set<string>();
  #nextWant = 0;
  #heartbeat: unknown;
  #helloTimer: unknown;
  #pendingHello = new Set<string>();
  #closed = false;
  /** Messages are handled one at a time, in order. */
  #inbox: Promise<void> = Promise.resolve();
  /** File requests sent and not answered yet, by number. */
  readonly #fileAsks = new Map<
    number,
    { resolve: (a: FileAnswer) => void; reject: (e: unknown) => void }
  >();
  #nextFileAsk = 0;
  #serving: Promise<void> = Promise.resolve();
  #fileServes = 0;
  /** Why the connection ended, once it has. */
  endReason: string | undefined;
  onEnd: ((reason: string) => void) | undefined;

  constructor(
    private readonly host: SyncHost,
    private readonly transport: Transport,
  ) {
    transport.onMessage = (frame) => {
      this.#inbox = this.#inbox.then(() => this.#receive(frame));
    };
    transport.onClose = (reason) => this.#finish(reason ?? 'the transport closed');
    this.#send({ t: 'hi', v: PROTOCOL_VERSION, d: host.did, n: this.#nonce });
    this.#heartbeat = setRepeating(() => this.#tick(), HEARTBEAT_MS);
  }

  /** This node's standing with the peer in `space`, once they share it. */
  status(space: string): PeerSpaceStatus | undefined {
    const link = this.#links.get(space);
    if (!link || !this.did) return undefined;
    const level =
      link.peerPrint !== undefined && toHex(link.peerPrint) === link.space.store.fingerprint();
    const outstanding =
      link.wanted.length > 0 ||
      link.inFlight.size > 0 ||
      link.session !== undefined ||
      link.waiting.size > 0;
    const synced = (link.reconciled && !outstanding) || level;
    return {
      did: this.did,
      synced,
      level,
      ...(link.refusedWhy ? { refused: link.refusedWhy } : {}),
    };
  }

  /** Space ids shared with this peer. */
  spaces(): string[] {
    return [...this.#links.keys()];
  }

  /** Tells the peer, soon, where we are in `space` (after taking in, or writing). */
  helloSoon(space: string): void {
    if (!this.#links.has(space) || this.#closed) return;
    this.#pendingHello.add(space);
    this.#helloTimer ??= setTimer(() => {
      this.#helloTimer = undefined;
      const spaces = [...this.#pendingHello];
      this.#pendingHello.clear();
      for (const s of spaces) this.#hello(s);
    }, HELLO_AFTER_TAKE_IN_MS);
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
    for (const ask of this.#fileAsks.values())
      ask.reject(new MincaError('closed', `the connection ended: ${reason}`));
    this.#fileAsks.clear();
    this.onEnd?.(reason);
  }

  #send(message: Message): void {
    if (this.#closed || this.transport.closed) return;
    this.transport.send(encodeMessage(message));
  }

  async #receive(frame: Uint8Array): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#handle(decodeMessage(frame));
    } catch (error) {
      // A peer that breaks the protocol loses this connection, never the node.
      const why = isMincaError(error) ? error.message : `internal error: ${String(error)}`;
      this.close(why);
    }
  }

  async #handle(m: Message): Promise<void> {
    if (m.t === 'bye') {
      this.transport.close(m.w);
      this.#finish(`peer left: ${m.w}`);
      return;
    }
    if (m.t === 'hi') return this.#onHi(m);
    if (m.t === 'auth') return this.#onAuth(m);
    if (!this.did) throw new MincaError('protocol', `${m.t} before the handshake`);
    if (m.t === 'spaces') return this.#onSpaces(m.s, m.a ?? [], m.p ?? []);
    const link = this.#links.get(m.s);
    if (!link) return; // A space we don't share with this peer: not ours to answer.
    switch (m.t) {
      case 'hello':
        return this.#onHello(link, m);
      case 'neg':
        return this.#onNeg(link, m.c, m.m);
      case 'want':
        return this.#onWant(link, m.q, m.i);
      case 'vers':
        return this.#onVersions(link, m.v, m.q);
      case 'refuse':
        link.refused.add(toHex(m.i));
        if (m.w) link.refusedWhy = m.w.slice(0, 500);
        return;
      case 'fwant':
        return this.#queueFileServe(m);
      case 'fdata': {
        // An answer after its asker gave up on it is dropped.
        const ask = this.#fileAsks.get(m.q);
        this.#fileAsks.delete(m.q);
        ask?.resolve({ ...(m.l ? { list: m.l } : {}), chunks: m.c });
        return;
      }
    }
  }

  /**
   * File requests are answered in order on their own queue, so one that waits for a file this
   * node is fetching doesn't hold up sync. A peer may have a few queued, no more.
   */
  #queueFileServe(m: Extract<Message, { t: 'fwant' }>): void {
    if (this.#fileServes >= MAX_FILE_REQUESTS_QUEUED)
      throw new MincaError(
        'protocol',
        `more than ${MAX_FILE_REQUESTS_QUEUED} file requests at once`,
      );
    this.#fileServes++;
    const ask = { id: toHex(m.i), list: m.l, chunks: m.n };
    this.#serving = this.#serving
      .then(async () => {
        const answer = (await this.host.files?.serve(m.s, ask, this)) ?? {
          chunks: m.n.map(() => null),
        };
        this.#send({
          t: 'fdata',
          s: m.s,
          q: m.q,
          ...(answer.list ? { l: answer.list } : {}),
          c: answer.chunks,
        });
      })
      .catch((error) => this.close(isMincaError(error) ? error.message : String(error)))
      .finally(() => {
        this.#fileServes--;
      });
  }

  /**
   * Asks the peer for parts of a file in `space` (spec 05 §16.6). Rejects `closed` when the
   * connection ends first; a caller that stops waiting calls {@link forgetFileAsk}.
   */
  askFile(space: string, ask: FileAsk): { q: number; answer: Promise<FileAnswer> } {
    const q = this.#nextFileAsk++;
    const answer = new Promise<FileAnswer>((resolve, reject) => {
      if (this.#closed || !this.#links.has(space)) {
        reject(new MincaError('closed', 'the peer does not share this space now'));
        return;
      }
      this.#fileAsks.set(q, { resolve, reject });
      this.#send({ t: 'fwant', s: space, q, i: fromHex(ask.id), l: ask.list, n: ask.chunks });
    });
    return { q, answer };
  }

  forgetFileAsk(q: number): void {
    this.#fileAsks.delete(q);
  }

  #handshakeBytes(
    signer: string,
    other: string,
    otherNonce: Uint8Array,
    signerNonce: Uint8Array,
  ): Uint8Array {
    return encodeCbor([HANDSHAKE_CONTEXT, signer, other, otherNonce, signerNonce]);
  }

  async #onHi(m: Extract<Message, { t: 'hi' }>): Promise<void> {
    if (this.#claimed) throw new MincaError('protocol', 'a second hi');
    if (m.v !== PROTOCOL_VERSION)
      throw new MincaError('protocol', `protocol version ${m.v} is not ${PROTOCOL_VERSION}`);
    if (m.d === this.host.did) throw new MincaError('protocol', 'the peer claims to be this node');
    this.#claimed = { did: m.d, nonce: m.n };
    this.#send({
      t: 'auth',
      g: await this.host.sign(this.#handshakeBytes(this.host.did, m.d, m.n, this.#nonce)),
    });
    this.#authSent = true;
  }

  async #onAuth(m: Extract<Message, { t: 'auth' }>): Promise<void> {
    if (!this.#claimed || !this.#authSent || this.did)
      throw new MincaError('protocol', 'auth out of turn');
    const { did, nonce } = this.#claimed;
    if (
      !(await verifySignature(
        did,
        this.#handshakeBytes(did, this.host.did, this.#nonce, nonce),
        m.g,
      ))
    ) {
      throw new MincaError('protocol', 'the peer did not prove its key');
    }
    this.did = did;
    await this.#offer();
  }

  /** Names the spaces we'd sync with the peer, and haven't named yet, with our credentials there. */
  async #offer(): Promise<void> {
    // A space goes again when we gained credentials there since (we joined it while connected),
    // since the peer may have refused it for want of them.
    const spaces: string[] = [];
    const credentials: Uint8Array[] = [];
    for (const id of new Set([...(await this.host.spacesFor(this.did!)), ...this.#admitted])) {
      const mine = await this.host.credentials([id]);
      const sent = this.#offered.get(id);
      if (sent !== undefined && mine.length <= sent) continue;
      this.#offered.set(id, mine.length);
      spaces.push(id);
      credentials.push(...mine);
    }
    if (spaces.length === 0 && this.#offered.size > 0) return;
    const a = credentials.slice(0, MAX_CREDENTIALS);
    const proofs = await this.#accessProofs(spaces);
    this.#send({
      t: 'spaces',
      s: spaces,
      ...(a.length > 0 ? { a } : {}),
      ...(proofs.length > 0 ? { p: proofs } : {}),
    });
  }

  /** Proofs, for a peer that holds spaces without their key, that this node has them. */
  async #accessProofs(spaces: readonly string[]): Promise<Array<[string, string, Uint8Array]>> {
    const did = this.did!;
    const peerNonce = this.#claimed!.nonce;
    const out: Array<[string, string, Uint8Array]> = [];
    for (const space of spaces) {
      const key = await this.host.accessKey?.(space, did);
      if (!key) continue;
      const bytes = accessProofBytes(space, this.host.did, did, peerNonce, this.#nonce);
      out.push([space, key.did, await key.sign(bytes)]);
    }
    return out;
  }

  /** A holder takes the spaces the peer proved it holds, as its policy allows. */
  async #admit(proofs: ReadonlyArray<[string, string, Uint8Array]>): Promise<string | undefined> {
    if (!this.host.admit || proofs.length === 0) return undefined;
    const proven: ProvenSpace[] = [];
    for (const [space, access, signature] of proofs) {
      const bytes = accessProofBytes(
        space,
        this.did!,
        this.host.did,
        this.#nonce,
        this.#claimed!.nonce,
      );
      if (!(await verifySignature(access, bytes, signature)))
        throw new MincaError('protocol', `the access proof for space ${space} does not verify`);
      proven.push({ space, access });
    }
    const { admitted, refused } = await this.host.admit(this.did!, proven);
    for (const id of admitted) this.#admitted.add(id);
    if (admitted.some((id) => !this.#offered.has(id))) await this.#offer();
    const first = refused[0];
    return first && `space ${first.space} refused: ${first.reason}`.slice(0, 500);
  }

  /**
   * Membership here changed: names spaces shared since the handshake, and asks again for the
   * versions refused for want of a grant, which may have just arrived.
   */
  reoffer(): void {
    if (!this.did || this.#closed) return;
    this.#inbox = this.#inbox
      .then(async () => {
        await this.#offer();
        await this.#link([...this.#peerOffered]);
        for (const link of this.#links.values()) this.#askUngranted(link);
      })
      .catch((error) => this.close(String(error)));
  }

  async #onSpaces(
    offered: string[],
    credentials: Uint8Array[],
    proofs: ReadonlyArray<[string, string, Uint8Array]>,
  ): Promise<void> {
    // A peer shows what gives it its role, so we can know it before we name a space to it.
    const held = new Set(await this.host.spacesHeld());
    let learned = false;
    const versions = await Promise.all(credentials.map(decodeVerifiedVersion));
    // The owner's offers and grants first: an acceptance stands only on an offer we know.
    versions.sort(
      (x, y) => Number(x.collection === 'sys.accept') - Number(y.collection === 'sys.accept'),
    );
    for (const version of versions) {
      if (!held.has(version.space)) continue;
      const space = await this.host.space(version.space);
      if (space.keyless) continue;
      if (!space.isCredentialOf(version, this.did!)) {
        throw new MincaError('protocol', 'a credential that does not show the peer’s own role');
      }
      if (await space.mayTakeIn(version))
        learned = (await space.takeIn([version])).length > 0 || learned;
    }
    if (learned) await this.#offer();
    const refusal = await this.#admit(proofs.filter(([space]) => offered.includes(space)));
    // Remembered up to a bound, so a peer can't grow the set at will.
    for (const id of offered)
      if (this.#peerOffered.size < MAX_PEER_OFFERED) this.#peerOffered.add(id);
    await this.#link(offered);
    // Nothing left to share: the peer hears why its spaces were refused.
    if (refusal !== undefined && this.#links.size === 0)
      throw new MincaError('not_authorized', refusal);
  }

  /** Links the spaces of `offered` we now share with the peer, and says hello in each. */
  async #link(offered: readonly string[]): Promise<void> {
    const pending = offered.filter((id) => !this.#links.has(id));
    if (pending.length === 0) return;
    const mine = new Set([...(await this.host.spacesFor(this.did!)), ...this.#admitted]);
    for (const id of pending) {
      if (!mine.has(id) || this.#links.has(id)) continue;
      this.#links.set(id, new Link(await this.host.space(id)));
      this.#hello(id);
      this.host.files?.linked(this, id);
    }
  }

  /** Whether this side starts reconciling: the smaller DID does. */
  get #starter(): boolean {
    return this.host.did < this.did!;
  }

  #hello(space: string): void {
    const link = this.#links.get(space);
    if (!link) return;
    const store = link.space.store;
    const counts = store
      .collectionNames()
      .map((c) => [c, store.collection(c)!.versions.size] as [string, number]);
    this.#send({ t: 'hello', s: space, f: fromHex(store.fingerprint()), c: counts });
  }

  async #onHello(link: Link, m: Extract<Message, { t: 'hello' }>): Promise<void> {
    link.peerPrint = m.f;
    link.peerCounts = m.c;
    if (toHex(m.f) === link.space.store.fingerprint()) return;
    // Not level: the starter reconciles; the other side answers with where it stands, so the
    // starter learns of the difference now rather than at its next heartbeat.
    if (this.#starter) await this.#startSession(link);
    else this.#hello(link.space.id);
  }

  #live(session: Session | undefined): boolean {
    return session !== undefined && this.host.now() - session.heard < STALE_MS;
  }

  /** Ids queued or asked for and not answered yet. */
  #fetching(link: Link): boolean {
    return link.wanted.length > 0 || link.inFlight.size > 0;
  }

  async #startSession(link: Link): Promise<void> {
    // While the last session's wants are still being answered, the difference a hello shows is
    // mostly what they bring: reconciling again now would list the same ids once per hello,
    // which made a large initial sync quadratic. It runs once they are in.
    if (this.#live(link.session) || (link.reconciled && this.#fetching(link))) {
      link.rerun = true;
      return;
    }
    link.rerun = false;
    link.systemDone = false;
    link.session = { queue: this.#collectionOrder(link), rounds: 0, heard: this.host.now() };
    await this.#nextCollection(link);
  }

  /**
   * `sys.*` first; then from the collection we hold fewest versions of to the most. Holding
   * nothing yet, follow the order the peer named its collections in.
   */
  #collectionOrder(link: Link): string[] {
    const store = link.space.store;
    const mine = store.collectionNames();
    const theirs = link.peerCounts.map(([c]) => c);
    const all = [...new Set([...mine, ...theirs])];
    const system = all.filter(isSystemCollection).sort();
    const rest = all.filter((c) => !isSystemCollection(c));
    const held = (c: string) => store.collection(c)?.versions.size ?? 0;
    if (store.versionCount() === 0) {
      rest.sort((a, b) => theirs.indexOf(a) - theirs.indexOf(b));
    } else {
      rest.sort((a, b) => held(a) - held(b) || (a < b ? -1 : 1));
    }
    return [...system, ...rest];
  }

  async #nextCollection(link: Link): Promise<void> {
    const session = link.session!;
    const collection = session.queue.shift();
    if (collection === undefined) {
      link.session = undefined;
      await this.#systemLevel(link);
      link.reconciled = true;
      if (link.rerun) await this.#startSession(link);
      return;
    }
    if (!isSystemCollection(collection)) await this.#systemLevel(link);
    session.collection = collection;
    session.negentropy = new Negentropy(
      syncSet(link.space.store, collection),
      NEGENTROPY_FRAME_LIMIT,
    );
    this.#send({
      t: 'neg',
      s: link.space.id,
      c: collection,
      m: session.negentropy.initiate() as Uint8Array,
    });
  }

  async #onNeg(link: Link, collection: string, message: Uint8Array): Promise<void> {
    const session = link.session;
    if (this.#starter) {
      if (!session || session.collection !== collection)
        throw new MincaError('protocol', 'a reconciliation reply nobody asked for');
      session.heard = this.host.now();
      if (++session.rounds > MAX_ROUNDS) {
        link.session = undefined;
        throw new MincaError('protocol', `reconciliation went past ${MAX_ROUNDS} rounds`);
      }
      const { reply, have, need } = (await session.negentropy!.reconcile(message)) as {
        reply?: Uint8Array;
        have: Uint8Array[];
        need: Uint8Array[];
      };
      await this.#push(link, have.map(toHex));
      this.#want(link, need.map(toHex), isSystemCollection(collection));
      if (reply) this.#send({ t: 'neg', s: link.space.id, c: collection, m: reply });
      else await this.#nextCollection(link);
      return;
    }
    // The starter goes through sys.* first: past it, what still waits on a grant is refused.
    if (!isSystemCollection(collection)) await this.#systemLevel(link);
    else link.systemDone = false;
    // The responder keeps no state between messages: each one is answered from the set alone.
    if (++link.answered > MAX_ANSWERED) {
      throw new MincaError(
        'protocol',
        `more than ${MAX_ANSWERED} reconciliation messages in ${HEARTBEAT_MS / 1000} s`,
      );
    }
    const responder = new Negentropy(syncSet(link.space.store, collection), NEGENTROPY_FRAME_LIMIT);
    const { reply } = (await responder.reconcile(message)) as { reply?: Uint8Array };
    this.#send({ t: 'neg', s: link.space.id, c: collection, m: reply! });
  }

  /** Queues ids to ask for; `first` puts them ahead (sys.* and what waiting versions need). */
  #want(link: Link, ids: string[], first = false): void {
    const fresh = ids.filter(
      (id) => !link.asked.has(id) && !link.refused.has(id) && !this.#holds(link, id),
    );
    for (const id of fresh) link.asked.add(id);
    if (first) link.wanted.unshift(...fresh);
    else link.wanted.push(...fresh);
    this.#sendWants(link);
  }

  #holds(link: Link, id: string): boolean {
    const store = link.space.store;
    return store.collectionNames().some((c) => store.hasVersion(c, id));
  }

  #sendWants(link: Link): void {
    while (link.inFlight.size < MAX_WANTS_IN_FLIGHT && link.wanted.length > 0) {
      const ids = link.wanted.splice(0, MAX_IDS_PER_WANT);
      const q = this.#nextWant++;
      link.inFlight.set(q, { ids, at: this.host.now() });
      this.#send({ t: 'want', s: link.space.id, q, i: ids.map(fromHex) });
    }
  }

  async #onWant(link: Link, q: number, ids: Uint8Array[]): Promise<void> {
    const versions = await link.space.store.getVersions(ids.map(toHex));
    this.#sendVersions(
      link,
      versions.filter((v): v is Version => v !== undefined),
      q,
    );
  }

  /** Sends versions the peer lacks, unasked (the starter learns what the responder needs). */
  async #push(link: Link, ids: string[]): Promise<void> {
    const send = ids.filter((id) => !link.refused.has(id));
    if (send.length === 0) return;
    const versions = await link.space.store.getVersions(send);
    this.#sendVersions(
      link,
      versions.filter((v): v is Version => v !== undefined),
    );
  }

  /**
   * Packs versions into frames under the byte and count limits (small versions hit the count
   * first); an answer to a want always gets one reply.
   */
  #sendVersions(link: Link, versions: Version[], q?: number): void {
    const budget = MAX_FRAME_BYTES - 1024;
    let batch: Uint8Array[] = [];
    let size = 0;
    const flush = (last: boolean) => {
      if (batch.length === 0 && !(last && q !== undefined)) return;
      this.#send({
        t: 'vers',
        s: link.space.id,
        ...(last && q !== undefined ? { q } : {}),
        v: batch,
      });
      batch = [];
      size = 0;
    };
    for (const v of versions) {
      if (size + v.bytes.length + 8 > budget || batch.length >= MAX_VERSIONS_PER_MESSAGE)
        flush(false);
      batch.push(v.bytes);
      size += v.bytes.length + 8;
    }
    flush(true);
  }

  async #onVersions(link: Link, frames: Uint8Array[], q?: number): Promise<void> {
    if (q !== undefined) {
      if (!link.inFlight.delete(q))
        throw new MincaError('protocol', `an answer to want ${q}, which was not asked`);
    }
    const space = link.space;
    const accepted: Version[] = [];
    // Decoded one by one, then their signatures checked all at once (WebCrypto runs them in
    // parallel). Any that fails ends the connection.
    const versions = frames.map((bytes) => decodeVersion(bytes));
    await Promise.all(versions.map(verifyVersion));
    for (const version of versions) {
      if (version.space !== space.id)
        throw new MincaError('protocol', `a version of another space in ${space.id}`);
      if (version.sealedBody !== null && !space.opens(version))
        throw new MincaError('protocol', `version ${version.id} does not open under the space key`);
      if (await space.mayTakeIn(version)) accepted.push(version);
      else if (link.systemDone) this.#refuse(link, version);
      else this.#wait(link, version);
    }
    // A holder over its limits refuses new data, with its reason, and keeps what it has.
    const refusal = accepted.length > 0 ? await space.refusal?.(this.did!, accepted) : undefined;
    if (refusal !== undefined) for (const v of accepted) this.#refuse(link, v, refusal);
    else if (accepted.length > 0) await this.#takeIn(link, accepted);
    this.#sendWants(link);
    await this.#rerunWhenFetched(link);
  }

  /** Runs the session deferred while wants were out, once they are all answered. */
  async #rerunWhenFetched(link: Link): Promise<void> {
    if (link.rerun && this.#starter && !this.#fetching(link) && !this.#live(link.session))
      await this.#startSession(link);
  }

  async #takeIn(link: Link, versions: Version[]): Promise<void> {
    const fresh = await link.space.takeIn(versions);
    // Ask for what these supersede and we lack, ahead of the rest.
    const earlier = fresh.flatMap((v) => v.supersedes).filter((id) => !this.#holds(link, id));
    if (earlier.length > 0) this.#want(link, earlier, true);
    if (fresh.some((v) => isSystemCollection(v.collection)))
      await this.#recheckWaiting(link, false);
  }

  /** Refuses a version; without `why`, because its author has no role here by what we hold. */
  #refuse(link: Link, version: Version, why?: string): void {
    link.refused.add(version.id);
    if (why === undefined) link.ungranted.add(version.id);
    this.#send({
      t: 'refuse',
      s: link.space.id,
      i: fromHex(version.id),
      w: why ?? `${version.author} may not write in this space`,
    });
  }

  /** Asks again for what was refused for want of a grant: what still lacks one is refused again. */
  #askUngranted(link: Link): void {
    const ids = link.ungranted.take();
    for (const id of ids) {
      link.refused.delete(id);
      link.asked.delete(id);
    }
    if (ids.length > 0) this.#want(link, ids);
  }

  #wait(link: Link, version: Version): void {
    link.waiting.set(version.id, version);
    if (link.waiting.size > MAX_WAITING) link.waiting.delete(link.waiting.keys().next().value!);
  }

  /** Takes in the waiting versions whose author may now write; with `final`, refuses the rest. */
  async #recheckWaiting(link: Link, final: boolean): Promise<void> {
    const ready: Version[] = [];
    for (const version of link.waiting.values()) {
      if (await link.space.mayTakeIn(version)) ready.push(version);
      else if (final) this.#refuse(link, version);
    }
    if (final) link.waiting.clear();
    for (const v of ready) link.waiting.delete(v.id);
    if (ready.length > 0) await this.#takeIn(link, ready);
  }

  /** The space's own records are level with the peer's now. */
  async #systemLevel(link: Link): Promise<void> {
    if (link.systemDone) return;
    link.systemDone = true;
    await this.#recheckWaiting(link, true);
  }

  /** Heartbeat: a hello per shared space; drop what went stale. */
  #tick(): void {
    const now = this.host.now();
    for (const [id, link] of this.#links) {
      if (link.session && !this.#live(link.session)) link.session = undefined;
      for (const [q, want] of link.inFlight) {
        if (now - want.at < STALE_MS) continue;
        link.inFlight.delete(q);
        // Found again by a later session, so they may be asked again.
        for (const wanted of want.ids) link.asked.delete(wanted);
      }
      link.answered = 0;
      this.#sendWants(link);
      this.#hello(id);
      this.#inbox = this.#inbox
        .then(() => this.#rerunWhenFetched(link))
        .catch((error) => this.close(String(error)));
    }
  }
}

/** The collection's Negentropy set as it is now: kept by the store, which hands a snapshot. */
function syncSet(store: Store, collection: string): NegentropySnapshot {
  return store.syncSet(collection);
}
