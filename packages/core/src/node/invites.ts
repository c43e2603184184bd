/**
 * Joining spaces (spec 05 §7.1, §7.2): tickets a member hands to one DID, invite codes the owner
 * hands to one person, the invites nobody used yet, and joining with either. Everything a code
 * or ticket holds is checked before anything is kept, so a bad one leaves no trace.
 */

import type { HybridClock } from '../clock.js';
import { MincaError } from '../errors.js';
import { verifyChain } from '../identity/writer-chain.js';
import { SPACE_ID } from '../ids.js';
import { verifyDetached } from '../intake.js';
import { decodeInvite, encodeInvite, MAX_INVITE_HOLDERS } from '../invite-code.js';
import { SigningKey } from '../keys.js';
import type { Registry } from '../registry.js';
import type { SharingIndex } from '../sharing-index.js';
import { HOLDER_COLLECTION } from '../space/holders.js';
import { accept, offer } from '../space/member-records.js';
import {
  didRecordId,
  MEMBER_COLLECTION,
  type Role,
  readWriterChain,
  WRITER_COLLECTION,
} from '../space/membership.js';
import type { OpenSpace } from '../space/open-space.js';
import { openBody, openWithKeys, type Version } from '../version.js';
import type { OpenSpaces } from './open-spaces.js';

/** Everything a node needs to join a space: see `spaces.share`. */
export interface SpaceTicket {
  id: string;
  key: Uint8Array;
  owner: string;
  /** The owner's grant of the joiner's role and the owner's writer records, as version bytes. */
  versions: Uint8Array[];
  /** The space's older keys, oldest first (spec 05 §7.4). */
  oldKeys?: Uint8Array[];
}

export interface SpaceInfo {
  id: string;
  owner: string;
}

export class Invites {
  constructor(
    private readonly registry: Registry,
    private readonly spaces: OpenSpaces,
    private readonly sharing: SharingIndex,
    private readonly clock: HybridClock,
  ) {}

  /** A ticket for `did` to join space `id`: its id, key and owner, and the owner's grant of `did`. */
  async share(id: string, did: string): Promise<SpaceTicket> {
    const space = await this.spaces.member(id);
    const grant = await space.store.record(MEMBER_COLLECTION, did.replace(/^did:key:/, ''));
    const ids = [
      ...(grant?.versions.map((m) => m.id) ?? []),
      ...(await ownerWriters(space)),
      ...(await ownersHolders(space)),
    ];
    const versions = await space.store.getVersions(ids);
    return {
      id,
      key: space.key.slice(),
      owner: space.owner,
      versions: versions.flatMap((v) => (v ? [v.bytes] : [])),
      ...(space.keys.length > 1 ? { oldKeys: olderKeys(space).map((k) => k.slice()) } : {}),
    };
  }

  /** An invite code to space `id` with `role`, kept in the registry until someone uses it. */
  async invite(id: string, role: Role): Promise<string> {
    const space = await this.spaces.member(id);
    const inviteKey = SigningKey.generate();
    const offered = await offer(space, inviteKey, role);
    await this.registry.putInvite({
      id: didRecordId(inviteKey.did),
      space: id,
      role,
      secret: inviteKey.exportSecret(),
    });
    // The holders the owner allows travel with the code: the joiner may meet only a host.
    const holders = (await space.store.getVersions(await ownersHolders(space))).flatMap((v) =>
      v ? [v.bytes] : [],
    );
    const writers = (await space.store.getVersions(await ownerWriters(space))).flatMap((v) =>
      v ? [v.bytes] : [],
    );
    return encodeInvite({
      space: id,
      key: space.key,
      owner: space.owner,
      secret: inviteKey.exportSecret(),
      offer: offered.bytes,
      holders,
      writers: writers.slice(0, MAX_INVITE_HOLDERS),
      oldKeys: olderKeys(space),
    });
  }

  /** This node's invites to space `id` that nobody has used yet. */
  async unused(id: string): Promise<Array<{ id: string; role: string }>> {
    const space = await this.spaces.member(id);
    const unused: Array<{ id: string; role: string }> = [];
    const membership = await space.membership();
    for (const invite of await this.registry.invites(id)) {
      if (membership.isUsed(invite.id)) await this.registry.deleteInvite(invite.id);
      else unused.push({ id: invite.id, role: invite.role });
    }
    return unused;
  }

  /** Joins with an invite code or a ticket, and opens the space. */
  async join(ticket: SpaceTicket | string): Promise<SpaceInfo> {
    this.spaces.check();
    if (typeof ticket === 'string') return this.#acceptInvite(ticket);
    const { id, key, owner } = ticket;
    if (
      !SPACE_ID.test(id) ||
      !(key instanceof Uint8Array) ||
      key.length !== 32 ||
      typeof owner !== 'string'
    ) {
      throw new MincaError(
        'invalid_input',
        'a space ticket needs the space id, its 32-byte key and its owner',
      );
    }
    const versions = await verifyDetached(ticket.versions);
    const kinds = [MEMBER_COLLECTION, WRITER_COLLECTION, HOLDER_COLLECTION];
    if (versions.some((v) => v.space !== id || !kinds.includes(v.collection))) {
      throw new MincaError(
        'invalid_input',
        "a space ticket holds only grants, holders and the owner's writers of its own space",
      );
    }
    const oldKeys = ticket.oldKeys ?? [];
    if (!oldKeys.every((k) => k instanceof Uint8Array && k.length === 32))
      throw new MincaError('invalid_input', 'a space ticket’s older keys are 32 bytes each');
    if (!(await this.registry.getSpace(id)))
      await this.registry.putSpace({
        id,
        key,
        keys: [...oldKeys, key],
        owner,
        added: this.clock.tick(),
      });
    const space = await this.spaces.member(id);
    await space.takeIn(versions);
    await this.sharing.update(id);
    return { id, owner: space.owner };
  }

  async #acceptInvite(code: string): Promise<SpaceInfo> {
    const invite = decodeInvite(code);
    const keys = [...(invite.oldKeys ?? []), invite.key];
    const writers = await verifyDetached(invite.writers ?? []);
    const owners = await ownersWriters(writers, invite.space, invite.owner, keys);
    const byOwner = (v: Version) => v.author === invite.owner || owners.has(v.author);
    const [offered] = await verifyDetached([invite.offer]);
    const offer = offered!;
    if (offer.space !== invite.space || !byOwner(offer) || offer.collection !== 'sys.invite') {
      throw new MincaError('invalid_input', 'the invite code does not hold its own offer');
    }
    const holders = await verifyDetached(invite.holders ?? []);
    if (
      holders.some(
        (v) => v.space !== invite.space || !byOwner(v) || v.collection !== HOLDER_COLLECTION,
      )
    ) {
      throw new MincaError(
        'invalid_input',
        "the invite code holds versions not of its owner's holders",
      );
    }
    // Checked before anything is kept, so a bad code leaves no trace.
    const inviteKey = SigningKey.fromSecret(invite.secret);
    if (offer.record !== didRecordId(inviteKey.did)) {
      throw new MincaError('not_authorized', 'the invite key does not match the offer');
    }
    try {
      openBody(offer, invite.key);
    } catch (cause) {
      throw new MincaError('invalid_input', 'the invite offer does not open under the space key', {
        cause,
      });
    }
    if (!(await this.registry.getSpace(invite.space))) {
      await this.registry.putSpace({
        id: invite.space,
        key: invite.key,
        keys,
        owner: invite.owner,
        added: this.clock.tick(),
      });
    }
    const space = await this.spaces.member(invite.space);
    await space.takeIn([...writers.filter((v) => owners.has(v.author)), offer, ...holders]);
    await accept(space, inviteKey);
    await this.sharing.update(space.id);
    return { id: space.id, owner: space.owner };
  }
}

/** The space's keys but the one it seals under now, first key first: a joiner reads the past. */
const olderKeys = (space: OpenSpace) =>
  space.keys.filter((k) => k.length !== space.key.length || k.some((x, i) => x !== space.key[i]));

/** Ids of the owner's `sys.holder` versions (at most 16): a joiner may meet only a host. */
async function ownersHolders(space: OpenSpace): Promise<string[]> {
  const membership = await space.membership();
  return [...(await space.store.records(HOLDER_COLLECTION)).records.values()]
    .flatMap((record) => record.versions)
    .filter((m) => membership.accountAt(m.author, m.timestamp) === space.owner)
    .map((m) => m.id)
    .slice(0, MAX_INVITE_HOLDERS);
}

/** Ids of the `sys.writer` records of the owner's writers. */
async function ownerWriters(space: OpenSpace): Promise<string[]> {
  const membership = await space.membership();
  const out: string[] = [];
  for (const w of membership.writersOf(space.owner)) {
    const winner = (await space.store.record(WRITER_COLLECTION, didRecordId(w)))?.winner();
    if (winner) out.push(winner.id);
  }
  return out;
}

/** The writers of `owner` that `versions` (`sys.writer` records from a code) show, by DID. */
async function ownersWriters(
  versions: readonly Version[],
  space: string,
  owner: string,
  keys: readonly Uint8Array[],
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const v of versions) {
    if (v.space !== space || v.collection !== WRITER_COLLECTION) continue;
    if (v.record !== didRecordId(v.author)) continue;
    let chain: Uint8Array[] | undefined;
    try {
      chain = readWriterChain(openWithKeys(v, keys));
    } catch {
      continue;
    }
    if (!chain) continue;
    const identity = await verifyChain(v.author, chain).catch(() => undefined);
    if (identity?.account === owner) out.add(v.author);
  }
  return out;
}
