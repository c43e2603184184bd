/**
 * Which spaces a connection shares (spec 05 §8 "Handshake", §7.3): naming ours to the peer with
 * our credentials and, to a holder, access proofs; taking in the peer's credentials; and, on a
 * holder, admitting the spaces the peer proved. A space is shared once both named it.
 */

import { toHex } from '../bytes.js';
import { encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import { admit, decodeIncoming, verifyIncoming } from '../intake.js';
import { verifySignature } from '../keys.js';
import type { Version } from '../version.js';
import type { ConnectionBudget } from './budget.js';
import { accessProofBytes, spaceProbe } from './handshake.js';
import {
  MAX_FRAME_BYTES,
  MAX_REFUSAL_REASON,
  MAX_REFUSALS,
  MAX_SPACES,
  type Message,
} from './messages.js';
import type { OfferedSpace, SpaceOfferFacts, SyncHost } from './sync-host.js';

/** Credentials one `spaces` message carries. */
const MAX_CREDENTIALS = 256;
/** Spaces a peer named that we remember, to link once we hold them. */
const MAX_PEER_OFFERED = 10_000;

/** What the offers of a connection need of it. */
export interface OfferChannel {
  /** The peer's account, proven. */
  readonly peer: string;
  /** The peer's writer key: what access proofs are bound to, with this node's. */
  readonly peerWriter: string;
  /** This side's nonce and the peer's, from the two `hi` messages. */
  readonly nonce: Uint8Array;
  readonly peerNonce: Uint8Array;
  send(message: Message): void;
  /** Shares those of `ids` this node may now share with the peer and doesn't yet. */
  link(ids: readonly string[]): Promise<void>;
  /** How many spaces the connection shares now. */
  readonly linked: number;
  /** What the peer may still make this node do. */
  readonly budget: ConnectionBudget;
  /** The spaces the peer's certificates limit it to, if they do. */
  readonly limit?: readonly string[];
}

/**
 * The first of `credentials`, at most {@link MAX_CREDENTIALS}, that fit in `room` bytes of a
 * frame: the names, proofs and probes of a full offer are 2.0 MB of its 2 MiB, and 256 large
 * credentials would take it over.
 */
function fitting(credentials: readonly Uint8Array[], room: number): Uint8Array[] {
  // The `a` key and its list's header; then each byte string's header, at most 5 bytes.
  let left = room - 16;
  const out: Uint8Array[] = [];
  for (const credential of credentials) {
    left -= credential.length + 5;
    if (out.length === MAX_CREDENTIALS || left < 0) break;
    out.push(credential);
  }
  return out;
}

export class SpaceOffers {
  /** Spaces we named to the peer so far, each with how many credentials went with it. */
  readonly #offered = new Map<string, number>();
  /** Spaces the peer named to us, linked or not: one we couldn't share yet may be later. */
  readonly #peerOffered = new Set<string>();
  /** Spaces the peer proved it holds and this node, a holder, keeps for it. */
  readonly #admitted = new Set<string>();
  /** Spaces the peer's probes showed it has, which it didn't name: we name them, with credentials. */
  readonly #probed = new Set<string>();
  /** Spaces we sent probes for. */
  readonly #probesSent = new Set<string>();
  /** What the peer's probe for each of our spaces would be, on this connection. */
  #expected: Map<string, string> | undefined;
  /** Spaces we proved that the peer, a holder, refused, with its reason (`spaces.r`). */
  readonly #refusedByPeer = new Map<string, string>();

  constructor(
    private readonly host: SyncHost,
    private readonly channel: OfferChannel,
  ) {}

  /**
   * The spaces this node would share with the peer: by role, and those it holds for it; only
   * those its certificates allow when it is limited to some (an app's key).
   */
  async shareable(): Promise<Set<string>> {
    const { limit } = this.channel;
    const all = [...(await this.host.spacesFor(this.channel.peer)), ...this.#admitted];
    return new Set(limit ? all.filter((id) => limit.includes(id)) : all);
  }

  /** Spaces we proved that the peer, a holder, refused, with its reason for each. */
  get refused(): ReadonlyMap<string, string> {
    return this.#refusedByPeer;
  }

  /**
   * Names the spaces we'd sync with the peer, and haven't named yet, with our credentials there;
   * a holder also says why it refused each of `refused` (spec 05 §8, `spaces.r`).
   */
  async offer(refused: ReadonlyArray<[string, string]> = []): Promise<void> {
    // A space goes again when we gained credentials there since (we joined it while connected),
    // since the peer may have refused it for want of them.
    const spaces: string[] = [];
    const credentials: Uint8Array[] = [];
    const ids = [...new Set([...(await this.shareable()), ...this.#probed])];
    // All in one read: the facts come from the sharing index, opening no space, and telling
    // the spaces with their key from those held without lists them all once.
    const each = await this.host.offerFacts(ids, this.channel.peer);
    const named: Array<[string, SpaceOfferFacts]> = [];
    for (const [i, id] of ids.entries()) {
      const facts = each[i]!;
      const sent = this.#offered.get(id);
      if (sent !== undefined && facts.shown.length <= sent) continue;
      this.#offered.set(id, facts.shown.length);
      named.push([id, facts]);
      spaces.push(id);
      credentials.push(...facts.shown);
    }
    const proofs = await this.#accessProofs(named);
    const probes = await this.#probes();
    if (
      spaces.length === 0 &&
      probes.length === 0 &&
      refused.length === 0 &&
      this.#offered.size > 0
    )
      return;
    // More refusals than one message carries go in messages of their own after it.
    const r = refused.slice(0, MAX_REFUSALS);
    const offer: Extract<Message, { t: 'spaces' }> = {
      t: 'spaces',
      s: spaces,
      ...(proofs.length > 0 ? { p: proofs } : {}),
      ...(probes.length > 0 ? { m: probes } : {}),
      ...(r.length > 0 ? { r } : {}),
    };
    const a = fitting(credentials, MAX_FRAME_BYTES - encodeCbor(offer).length);
    this.channel.send(a.length > 0 ? { ...offer, a } : offer);
    for (let at = MAX_REFUSALS; at < refused.length; at += MAX_REFUSALS)
      this.channel.send({ t: 'spaces', s: [], r: refused.slice(at, at + MAX_REFUSALS) });
  }

  /**
   * Probes for the spaces we hold with their key and haven't named to the peer nor probed yet:
   * a member of one who doesn't know us yet matches it, and names the space to us (spec 05 §8).
   */
  async #probes(): Promise<Uint8Array[]> {
    const { peerWriter, nonce, peerNonce } = this.channel;
    const out: Uint8Array[] = [];
    // Only those keys are derived: a node naming all its spaces to the peer derives none.
    const wanted = (space: string) => !this.#offered.has(space) && !this.#probesSent.has(space);
    for (const [space, key] of (await this.host.probeKeys?.(wanted)) ?? []) {
      if (!wanted(space)) continue;
      if (out.length >= MAX_SPACES) break;
      this.#probesSent.add(space);
      out.push(spaceProbe(key, space, this.host.did, peerWriter, peerNonce, nonce));
    }
    return out;
  }

  /** The spaces of ours the peer's probes name; computed once per connection. */
  async #matchProbes(probes: readonly Uint8Array[]): Promise<string[]> {
    if (probes.length === 0) return [];
    if (!this.#expected) {
      const { peerWriter, nonce, peerNonce } = this.channel;
      this.#expected = new Map();
      for (const [space, key] of (await this.host.probeKeys?.()) ?? [])
        this.#expected.set(
          toHex(spaceProbe(key, space, peerWriter, this.host.did, nonce, peerNonce)),
          space,
        );
    }
    return probes.flatMap((p) => this.#expected!.get(toHex(p)) ?? []);
  }

  /** Membership here changed: names spaces shared since, and links those the peer named. */
  async reoffer(): Promise<void> {
    await this.offer();
    await this.channel.link([...this.#peerOffered]);
  }

  /** Proofs, for a peer that holds spaces without their key, that this node has them. */
  async #accessProofs(
    spaces: ReadonlyArray<[string, SpaceOfferFacts]>,
  ): Promise<Array<[string, string, Uint8Array]>> {
    const { peerWriter, nonce, peerNonce } = this.channel;
    const out: Array<[string, string, Uint8Array]> = [];
    for (const [space, { accessKey }] of spaces) {
      const key = await accessKey?.();
      if (!key) continue;
      const bytes = accessProofBytes(space, this.host.did, peerWriter, peerNonce, nonce);
      out.push([space, key.did, await key.sign(bytes)]);
    }
    return out;
  }

  /** The peer's `spaces`: its credentials, its proofs, and the spaces it would share. */
  async onSpaces(
    offered: string[],
    credentials: Uint8Array[],
    proofs: ReadonlyArray<[string, string, Uint8Array]>,
    probes: readonly Uint8Array[] = [],
    refused: ReadonlyArray<[string, string]> = [],
  ): Promise<void> {
    // Only refusals of spaces we proved to the peer mean anything; remembered up to a bound.
    for (const [space, reason] of refused) {
      if (!this.#offered.has(space)) continue;
      if (this.#refusedByPeer.size < MAX_PEER_OFFERED || this.#refusedByPeer.has(space))
        this.#refusedByPeer.set(space, reason);
    }
    // A peer shows what gives it its role, so we can know it before we name a space to it.
    let learned = await this.#takeCredentials(credentials);
    // A member who doesn't know the peer yet: name the space, with what shows our role.
    for (const space of await this.#matchProbes(probes)) {
      if (this.#probed.has(space)) continue;
      this.#probed.add(space);
      learned = true;
    }
    if (learned) await this.offer();
    const named = new Set(offered);
    const refusal = await this.#admit(proofs.filter(([space]) => named.has(space)));
    // Remembered up to a bound, so a peer can't grow the set at will.
    for (const id of offered)
      if (this.#peerOffered.size < MAX_PEER_OFFERED) this.#peerOffered.add(id);
    await this.channel.link(offered);
    // Nothing left to share: the peer hears why its spaces were refused.
    if (refusal !== undefined && this.channel.linked === 0)
      throw new MincaError('not_authorized', refusal);
  }

  /**
   * Takes in the peer's credentials in the spaces this node holds with their key, through the
   * intake. One that is not of the peer's own role ends the connection. True when any was new.
   */
  async #takeCredentials(credentials: Uint8Array[]): Promise<boolean> {
    const bySpace = new Map<string, Version[]>();
    for (const version of decodeIncoming(credentials)) {
      let list = bySpace.get(version.space);
      if (!list) bySpace.set(version.space, (list = []));
      list.push(version);
    }
    let learned = false;
    for (const [id, versions] of bySpace) {
      if (!(await this.host.holds(id))) continue;
      const space = await this.host.space(id);
      // Held without its key: roles can't be judged here, so credentials mean nothing.
      if (space.key === undefined) continue;
      if (versions.some((v) => !space.isCredentialOf(v, this.channel.peer)))
        throw new MincaError('protocol', 'a credential that does not show the peer’s own role');
      this.channel.budget.signatures(
        versions.filter((v) => !space.store.hasVersion(v.collection, v.id)).length,
      );
      const fresh = await verifyIncoming(space, versions);
      // The owner's offers and grants go in before the acceptances that stand on them.
      const { taken } = await admit(space, fresh, { peer: this.channel.peer });
      learned ||= taken.length > 0;
    }
    return learned;
  }

  /** A holder takes the spaces the peer proved it holds, as its policy allows. */
  async #admit(proofs: ReadonlyArray<[string, string, Uint8Array]>): Promise<string | undefined> {
    if (!this.host.admit || proofs.length === 0) return undefined;
    const { peer, peerWriter, nonce, peerNonce, budget } = this.channel;
    const offered: OfferedSpace[] = proofs.map(([space, access, signature]) => ({
      space,
      access,
      verify: async () => {
        budget.signatures(1);
        const bytes = accessProofBytes(space, peerWriter, this.host.did, nonce, peerNonce);
        return verifySignature(access, bytes, signature);
      },
    }));
    const { admitted, refused } = await this.host.admit(peer, offered);
    for (const id of admitted) this.#admitted.add(id);
    // Every refused space gets its own reason; the admitted ones are named back.
    const reasons = refused.map(
      ({ space, reason }) => [space, reason.slice(0, MAX_REFUSAL_REASON)] as [string, string],
    );
    if (admitted.some((id) => !this.#offered.has(id)) || reasons.length > 0)
      await this.offer(reasons);
    const first = refused[0];
    return first && `space ${first.space} refused: ${first.reason}`.slice(0, 500);
  }
}
