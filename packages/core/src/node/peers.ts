/**
 * The node's connected peers, and what their connections need of the node (the
 * {@link SyncHost}): its key, the spaces it shares with a DID, its credentials, and its spaces
 * as sync sees them.
 */
import type { NodeFiles } from '../files/node-files.js';
import { spaceAccessKey, spaceProbeKey } from '../hosting/access-key.js';
import { verifyRevocation } from '../identity/certificate.js';
import type { WriterIdentity } from '../identity/writer-chain.js';
import type { SigningKey } from '../keys.js';
import type { Registry } from '../registry.js';
import type { SharingIndex } from '../sharing-index.js';
import { Peer, type PeerSpaceStatus } from '../sync/peer.js';
import type { Admission, OfferedSpace, SyncHost } from '../sync/sync-host.js';
import type { Transport } from '../sync/transport.js';
import type { OpenSpaces } from './open-spaces.js';

export interface PeersConfig {
  key: SigningKey;
  identity: WriterIdentity;
  now: () => number;
  registry: Registry;
  spaces: OpenSpaces;
  sharing: SharingIndex;
  files: NodeFiles;
  /** A holder's admission of the spaces a peer proved (spec 05 §7.3); none on a member. */
  admit: ((did: string, offered: readonly OfferedSpace[]) => Promise<Admission>) | undefined;
}

/**
 * Whether `did`, a peer's proven account, is another node of this holder's own account: a
 * host of the same fleet (spec 06 §6), whose key the fleet's key certified as this one's was.
 * Without certificates a node is its own account, and no other peer can prove that key.
 */
function isFleetPeer(config: PeersConfig, did: string): boolean {
  return (
    config.admit !== undefined &&
    config.identity.chain.length > 0 &&
    did === config.identity.account
  );
}

export class Peers {
  readonly #peers = new Set<Peer>();
  readonly #host: SyncHost;
  readonly #config: PeersConfig;

  constructor(config: PeersConfig) {
    this.#config = config;
    const { key, identity, registry, spaces, sharing, files, admit } = config;
    this.#host = {
      did: key.did,
      chain: identity.chain,
      sign: (message) => key.sign(message),
      now: () => config.now(),
      // A peer opens a space again only within the most open at once (spec 06 §4.1).
      space: (id) => spaces.viewForPeer(id),
      closedHello: (id) => spaces.closedHello(id),
      used: (id) => spaces.touch(id),
      files,
      sessions: spaces.sessions,
      holds: async (id) =>
        (await registry.getSpace(id)) !== undefined || (await registry.getHeld(id)) !== undefined,
      // From the sharing index: a handshake opens only the spaces shared with the peer. A holder
      // shares every space it holds with another node of its own account (a fleet's host).
      spacesFor: async (did) => {
        const shared = await sharing.spacesFor(did);
        if (!isFleetPeer(config, did)) return shared;
        return [...new Set([...shared, ...(await registry.heldIds())])];
      },
      offerFacts: async (ids, did) => {
        // A space held without its key gives no role and proves nothing: one listing tells
        // those apart, where a host asking the registry of each of its spaces at every offer
        // did so per space. The rest come from the sharing index, which opens none of them;
        // the access key is derived as the open space derives it, only for a space named to a
        // holder the owner allows.
        if (ids.length === 0) return [];
        const members = new Set(await registry.spaceIds());
        const facts = await sharing.meetingIn(ids.filter((id) => members.has(id)));
        let next = 0;
        return ids.map((id) => {
          if (!members.has(id)) return { shown: [] };
          const { shown, holders } = facts[next++]!;
          if (!holders.has(did)) return { shown };
          const accessKey = async () => {
            const entry = await registry.getSpace(id);
            return entry && spaceAccessKey(id, entry.keys[0]!, key);
          };
          return { shown, accessKey };
        });
      },
      probeKeys: async (wanted) => {
        const out: Array<[string, Uint8Array]> = [];
        for (const id of await registry.spaceIds()) {
          if (wanted && !wanted(id)) continue;
          const entry = await registry.getSpace(id);
          if (entry) out.push([id, spaceProbeKey(id, entry.keys[0]!)]);
        }
        return out;
      },
      revoked: async (subject, account) => {
        const statement = await registry.revoked(subject);
        if (!statement) return false;
        const revocation = await verifyRevocation(statement).catch(() => undefined);
        return revocation?.account === account && revocation.at <= config.now();
      },
      ...(admit ? { admit } : {}),
    };
  }

  /** Starts syncing with the peer at the other end of `transport`. */
  connect(transport: Transport, ended: (peer: Peer) => void): Peer {
    const peer = new Peer(this.#host, transport);
    this.#peers.add(peer);
    peer.onEnd(() => {
      this.#peers.delete(peer);
      ended(peer);
    });
    return peer;
  }

  /** Space `id` changed here: every peer sharing it hears soon; `membership`: who shares it may differ. */
  changed(id: string, membership: boolean): void {
    for (const peer of this.#peers) {
      peer.helloSoon(id);
      if (membership) peer.reoffer();
    }
  }

  /**
   * A holder started holding a space: its fleet peers (spec 06 §6) are named it now, so a write
   * reaching either reaches the other's clients without waiting for the bucket.
   */
  heldChanged(): void {
    for (const peer of this.#peers)
      if (peer.did && isFleetPeer(this.#config, peer.did)) peer.reoffer();
  }

  /** Space `id` is closing: every connection's sync lets go of it, at once. */
  closing(id: string): void {
    for (const peer of this.#peers) peer.rest(id);
  }

  /**
   * How the connections use space `id` now: `pinned`, one handles a message of it; `syncing`,
   * a session or a want is under way in it.
   */
  busy(id: string): 'pinned' | 'syncing' | undefined {
    let busy: 'syncing' | undefined;
    for (const peer of this.#peers) {
      const use = peer.busy(id);
      if (use === 'pinned') return use;
      busy ??= use;
    }
    return busy;
  }

  /** How this node stands with each connected peer in space `id`. */
  status(id: string): PeerSpaceStatus[] {
    return [...this.#peers].flatMap((p) => p.status(id) ?? []);
  }

  closeAll(reason: string): void {
    for (const peer of [...this.#peers]) peer.close(reason);
  }
}
