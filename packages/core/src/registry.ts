/**
 * The registry: what a node keeps per account that peers can't give back — space keys, the
 * node's signing key, unused invites. A store of its own (path `registry`); it is the one store
 * never re-synced, so wrap it in `sealedStores` where the disk isn't trusted. Spec 05 §5.3.
 */
import { decodeStrict, encodeCbor } from './encoding.js';
import { MincaError } from './errors.js';
import { SigningKey } from './keys.js';
import type { Store } from './store.js';

/** What the registry knows of a space. */
export interface SpaceEntry {
  id: string;
  /** The 32-byte space key bodies are sealed under. */
  key: Uint8Array;
  /** The DID that created the space and owns it. */
  owner: string;
  /** When this node added it, ms. */
  added: number;
}

/** An invite this node made and nobody has used yet. */
export interface InviteEntry {
  /** The invite key's DID suffix: the id of its `sys.invite` record. */
  id: string;
  space: string;
  role: string;
  /** The invite key's 32-byte secret. */
  secret: Uint8Array;
}

const NODE_KEY = 'key/node';
const SPACE_PREFIX = 'space/';
const INVITE_PREFIX = 'invite/';

export class Registry {
  constructor(private readonly store: Store) {}

  /** The node's signing key, made and kept on first use. */
  async nodeKey(): Promise<SigningKey> {
    const secret = await this.store.get(NODE_KEY);
    if (secret) {
      if (secret.length !== 32)
        throw new MincaError('corrupt', 'the registry holds a damaged node key');
      return SigningKey.fromSecret(secret);
    }
    const key = SigningKey.generate();
    await this.store.commit({ entries: [{ key: NODE_KEY, value: key.exportSecret() }] });
    return key;
  }

  async putSpace(space: SpaceEntry): Promise<void> {
    const value = encodeCbor({ k: space.key, o: space.owner, a: space.added });
    await this.store.commit({ entries: [{ key: SPACE_PREFIX + space.id, value }] });
  }

  async getSpace(id: string): Promise<SpaceEntry | undefined> {
    const bytes = await this.store.get(SPACE_PREFIX + id);
    if (!bytes) return undefined;
    const m = decodeStrict(bytes, { maxBytes: 4096, maxDepth: 1 }) as Record<string, unknown>;
    if (
      !(m?.k instanceof Uint8Array) ||
      m.k.length !== 32 ||
      typeof m.o !== 'string' ||
      typeof m.a !== 'number'
    ) {
      throw new MincaError('corrupt', `the registry entry of space ${id} is damaged`);
    }
    return { id, key: m.k, owner: m.o, added: m.a };
  }

  async putInvite(invite: InviteEntry): Promise<void> {
    const value = encodeCbor({ s: invite.space, r: invite.role, k: invite.secret });
    await this.store.commit({ entries: [{ key: INVITE_PREFIX + invite.id, value }] });
  }

  async deleteInvite(id: string): Promise<void> {
    await this.store.commit({ entries: [{ key: INVITE_PREFIX + id, value: undefined }] });
  }

  /** Unused invites of `space`. */
  async invites(space: string): Promise<InviteEntry[]> {
    const out: InviteEntry[] = [];
    for (const key of await this.store.list(INVITE_PREFIX)) {
      const bytes = await this.store.get(key);
      if (!bytes) continue;
      const m = decodeStrict(bytes, { maxBytes: 4096, maxDepth: 1 }) as Record<string, unknown>;
      if (typeof m?.s !== 'string' || typeof m.r !== 'string' || !(m.k instanceof Uint8Array)) {
        throw new MincaError('corrupt', `the registry entry ${key} is damaged`);
      }
      if (m.s === space)
        out.push({ id: key.slice(INVITE_PREFIX.length), space: m.s, role: m.r, secret: m.k });
    }
    return out;
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** Reads the registry again, after another writer changed it. */
  invalidate(): Promise<void> {
    return this.store.invalidate();
  }

  /** Ids of every space in the registry. */
  async spaceIds(): Promise<string[]> {
    return (await this.store.list(SPACE_PREFIX)).map((k) => k.slice(SPACE_PREFIX.length));
  }
}
