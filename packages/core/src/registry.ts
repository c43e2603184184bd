/**
 * The registry: what a node keeps per account that peers can't give back — space keys, the
 * node's signing key, unused invites. A store of its own (path `registry`); it is the one store
 * never re-synced, so wrap it in `sealedStores` where the disk isn't trusted. Spec 05 §5.3.
 */
import { equalBytes } from './bytes.js';
import { decodeStrict, encodeCbor } from './encoding.js';
import { MincaError } from './errors.js';
import { SigningKey } from './keys.js';
import { type HolderKind, isHolderKind } from './space/holders.js';
import type { Store } from './store.js';

/** What the registry knows of a space. */
export interface SpaceEntry {
  id: string;
  /** The 32-byte space key new bodies are sealed under: one of {@link keys}. */
  key: Uint8Array;
  /**
   * Every key the space had that this node holds, the first key first (spec 05 §7.4): a key
   * changes when a member leaves, and older bodies open under the older keys.
   */
  keys: Uint8Array[];
  /** The DID that created the space and owns it. */
  owner: string;
  /** When this node added it, ms. */
  added: number;
}

/**
 * What a meeting with a peer needs of a space this node has the key of, kept so a meeting
 * opens none of them (spec 05 §5.3): what this account shows there, and who holds it.
 */
export interface MeetingFacts {
  /** The versions that give this account its role there (its credentials, spec 05 §8). */
  shown: Uint8Array[];
  /** The holders the owner allows, by DID (spec 05 §7.3). */
  holders: Map<string, HolderKind>;
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

/** What the registry keeps of a space held without its key. */
export interface HeldEntry {
  id: string;
  /** The space's access DID (spec 05 §7.3): every peer proves the space with it. */
  access: string;
  /** The peer that first offered the space. */
  offeredBy: string;
  /** When this node started holding it, ms. */
  added: number;
}

const NODE_KEY = 'key/node';
const SPACE_PREFIX = 'space/';
const INVITE_PREFIX = 'invite/';
/** Spaces held without their key (spec 05 §7.3). */
const HELD_PREFIX = 'held/';
/** The sharing index (spec 05 §5.3): who each space is shared with, and the reverse. */
const SHARERS_PREFIX = 'sharers/';
const SHARED_PREFIX = 'shared/';
const SHARING_INDEXED = 'index/sharing';
/** What a meeting needs of each space this node has the key of, beside the index. */
const MEETING_PREFIX = 'meeting/';
/** Revocations this node knows (spec 05 §6): a revoked key is nobody in a handshake. */
const REVOKED_PREFIX = 'revoked/';
const DID_PREFIX = 'did:key:';

const ONE = new Uint8Array([1]);
/** The most a `meeting/` entry reads: a few versions of a few KiB each, with room to spare. */
const MAX_MEETING_BYTES = 1024 * 1024;

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

  async putSpace(space: Omit<SpaceEntry, 'keys'> & { keys?: Uint8Array[] }): Promise<void> {
    const keys = space.keys ?? [space.key];
    const value = encodeCbor({
      k: space.key,
      o: space.owner,
      a: space.added,
      ...(keys.length > 1 ? { ks: keys } : {}),
    });
    await this.store.commit({ entries: [{ key: SPACE_PREFIX + space.id, value }] });
  }

  async getSpace(id: string): Promise<SpaceEntry | undefined> {
    const bytes = await this.store.get(SPACE_PREFIX + id);
    if (!bytes) return undefined;
    const m = decodeStrict(bytes, { maxBytes: 64 * 1024, maxDepth: 2 }) as Record<string, unknown>;
    const isKey = (k: unknown): k is Uint8Array => k instanceof Uint8Array && k.length === 32;
    if (
      !isKey(m?.k) ||
      typeof m.o !== 'string' ||
      typeof m.a !== 'number' ||
      (m.ks !== undefined && !(Array.isArray(m.ks) && m.ks.every(isKey)))
    ) {
      throw new MincaError('corrupt', `the registry entry of space ${id} is damaged`);
    }
    const keys = (m.ks as Uint8Array[] | undefined) ?? [m.k];
    return { id, key: m.k, keys, owner: m.o, added: m.a };
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

  /** Records spaces newly held, in one commit (a peer's offer may bring thousands). */
  async putHeld(held: readonly HeldEntry[]): Promise<void> {
    if (held.length === 0) return;
    const entries = held.map(({ id, access, offeredBy, added }) => ({
      key: HELD_PREFIX + id,
      value: encodeCbor({ h: access, o: offeredBy, a: added }),
    }));
    await this.store.commit({ entries });
  }

  async getHeld(id: string): Promise<HeldEntry | undefined> {
    const bytes = await this.store.get(HELD_PREFIX + id);
    if (!bytes) return undefined;
    const m = decodeStrict(bytes, { maxBytes: 4096, maxDepth: 1 }) as Record<string, unknown>;
    if (typeof m?.h !== 'string' || typeof m.o !== 'string' || typeof m.a !== 'number')
      throw new MincaError('corrupt', `the registry entry of held space ${id} is damaged`);
    return { id, access: m.h, offeredBy: m.o, added: m.a };
  }

  async deleteHeld(id: string): Promise<void> {
    await this.store.commit({ entries: [{ key: HELD_PREFIX + id, value: undefined }] });
  }

  /** Ids of the spaces held without their key. */
  async heldIds(): Promise<string[]> {
    return (await this.store.list(HELD_PREFIX)).map((k) => k.slice(HELD_PREFIX.length));
  }

  /** The DIDs space `id` is shared with, as last indexed; `undefined` when never indexed. */
  async sharers(id: string): Promise<string[] | undefined> {
    const bytes = await this.store.get(SHARERS_PREFIX + id);
    if (!bytes) return undefined;
    const dids = decodeStrict(bytes, { maxBytes: 4 * 1024 * 1024, maxDepth: 1 });
    if (!Array.isArray(dids) || !dids.every((d) => typeof d === 'string'))
      throw new MincaError('corrupt', `the sharing index of space ${id} is damaged`);
    return dids as string[];
  }

  /** Records who space `id` is shared with now, in one write with the reverse entries. */
  async setSharers(id: string, before: readonly string[], after: readonly string[]): Promise<void> {
    const now = new Set(after);
    const was = new Set(before);
    const key = (did: string) => `${SHARED_PREFIX}${did.slice(DID_PREFIX.length)}/${id}`;
    await this.store.commit({
      entries: [
        { key: SHARERS_PREFIX + id, value: encodeCbor([...now].sort()) },
        ...[...was].filter((d) => !now.has(d)).map((d) => ({ key: key(d), value: undefined })),
        ...[...now].filter((d) => !was.has(d)).map((d) => ({ key: key(d), value: ONE })),
      ],
    });
  }

  /** The spaces the sharing index says are shared with `did`. */
  async sharedWith(did: string): Promise<string[]> {
    const prefix = `${SHARED_PREFIX}${did.slice(DID_PREFIX.length)}/`;
    return (await this.store.list(prefix)).map((k) => k.slice(prefix.length));
  }

  /**
   * What a meeting needs of space `id` without opening it, as last indexed for account `did`:
   * `undefined` when never indexed for `did`, or when the entry does not read as one (derived
   * data: a damaged entry is read from the space again, never trusted).
   */
  async meeting(id: string, did: string): Promise<MeetingFacts | undefined> {
    const bytes = await this.store.get(MEETING_PREFIX + id);
    if (!bytes) return undefined;
    try {
      const m = decodeStrict(bytes, { maxBytes: MAX_MEETING_BYTES, maxDepth: 3 }) as {
        d?: unknown;
        v?: unknown;
        h?: unknown;
      };
      const pair = (h: unknown): h is [string, HolderKind] =>
        Array.isArray(h) && h.length === 2 && typeof h[0] === 'string' && isHolderKind(h[1]);
      if (
        m?.d !== did ||
        !Array.isArray(m.v) ||
        !m.v.every((v) => v instanceof Uint8Array) ||
        !Array.isArray(m.h) ||
        !m.h.every(pair)
      )
        return undefined;
      return { shown: m.v as Uint8Array[], holders: new Map(m.h as Array<[string, HolderKind]>) };
    } catch {
      return undefined;
    }
  }

  /** Keeps what a meeting needs of space `id` for account `did` (see {@link meeting}), if changed. */
  async putMeeting(id: string, did: string, facts: MeetingFacts): Promise<void> {
    const key = MEETING_PREFIX + id;
    const holders = [...facts.holders].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const value = encodeCbor({ d: did, v: [...facts.shown], h: holders });
    const before = await this.store.get(key);
    if (before && equalBytes(before, value)) return;
    await this.store.commit({ entries: [{ key, value }] });
  }

  /** Whether every space was indexed once (older registries are, on first use). */
  async sharingIndexed(): Promise<boolean> {
    return (await this.store.get(SHARING_INDEXED)) !== undefined;
  }

  async markSharingIndexed(): Promise<void> {
    await this.store.commit({ entries: [{ key: SHARING_INDEXED, value: ONE }] });
  }

  /** Ids of every space in the registry. */
  async spaceIds(): Promise<string[]> {
    return (await this.store.list(SPACE_PREFIX)).map((k) => k.slice(SPACE_PREFIX.length));
  }

  /** Keeps a verified revocation's statement, by its subject; the earliest one stays. */
  async putRevoked(subject: string, statement: Uint8Array): Promise<void> {
    const key = REVOKED_PREFIX + subject.slice(DID_PREFIX.length);
    if (await this.store.get(key)) return;
    await this.store.commit({ entries: [{ key, value: statement }] });
  }

  /** The statement revoking `subject`, if this node knows one (verify it before trusting it). */
  async revoked(subject: string): Promise<Uint8Array | undefined> {
    return this.store.get(REVOKED_PREFIX + subject.slice(DID_PREFIX.length));
  }
}
