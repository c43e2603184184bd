/**
 * The node's connected peers, and what their connections need of the node (the
 * {@link SyncHost}): its key, the spaces it shares with a DID, its credentials, and its spaces
 * as sync sees them.
 */
import type { NodeFiles } from '../files/node-files.js';
import { spaceProbeKey } from '../hosting/access-key.js';
import { verifyRevocation } from '../identity/certificate.js';
import type { WriterIdentity } from '../identity/writer-chain.js';
import type { SigningKey } from '../keys.js';
import type { Registry } from '../registry.js';
import type { SharingIndex } from '../sharing-index.js';
import { credentials } from '../space/member-records.js';
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

export class Peers {
  readonly #peers = new Set<Peer>();
  readonly #host: SyncHost;

  constructor(config: PeersConfig) {
    const { key, identity, registry, spaces, sharing, files, admit } = config;
    this.#host = {
      did: key.did,
      chain: identity.chain,
      sign: (message) => key.sign(message),
      now: () => config.now(),
      space: (id) => spaces.view(id),
      files,
      holds: async (id) =>
        (await registry.getSpace(id)) !== undefined || (await registry.getHeld(id)) !== undefined,
      // From the sharing index: a handshake opens only the spaces shared with the peer.
      spacesFor: (did) => sharing.spacesFor(did),
      credentials: async (ids) => {
        const out: Uint8Array[] = [];
        for (const id of ids) {
          if (!(await registry.getSpace(id))) continue; // held without its key: no role
          const space = await spaces.member(id);
          for (const v of await credentials(space, identity.account)) out.push(v.bytes);
        }
        return out;
      },
      probeKeys: async () => {
        const out: Array<[string, Uint8Array]> = [];
        for (const id of await registry.spaceIds()) {
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
      accessKey: async (id, did) => {
        if (!(await registry.getSpace(id))) return undefined;
        const space = await spaces.member(id);
        return (await space.holderKind(did)) ? space.accessKey : undefined;
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

  /** How this node stands with each connected peer in space `id`. */
  status(id: string): PeerSpaceStatus[] {
    return [...this.#peers].flatMap((p) => p.status(id) ?? []);
  }

  closeAll(reason: string): void {
    for (const peer of [...this.#peers]) peer.close(reason);
  }
}
