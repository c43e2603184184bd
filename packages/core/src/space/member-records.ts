/**
 * Writing a space's own membership records (spec 05 §7) from this node: grants, offers,
 * acceptances, holders; and the credentials it shows a peer that doesn't know it yet.
 */
import { MincaError } from '../errors.js';
import type { SigningKey } from '../keys.js';
import { openWithKeys, type Version } from '../version.js';
import { HOLDER_COLLECTION, type HolderKind } from './holders.js';
import {
  ACCEPT_COLLECTION,
  acceptProof,
  INVITE_COLLECTION,
  MEMBER_COLLECTION,
  REVOKE_COLLECTION,
  type Role,
  readWriterChain,
  WRITER_COLLECTION,
} from './membership.js';
import type { OpenSpace } from './open-space.js';
import { acceptRecordId, didRecordId } from './record-ids.js';
import {
  KEY_COLLECTION,
  keyRecipients,
  keyRecordFor,
  keyRecordId,
  newKeyRecord,
  wrappedFor,
} from './space-keys.js';

/** Where revocations are kept in a space: one record per revoked device or writer. */
export const REVOKE_RECORD = (subject: string) => didRecordId(subject);

const checkDid = (did: string, what: string) => {
  if (typeof did !== 'string' || !did.startsWith('did:key:'))
    throw new MincaError('invalid_input', `${what} is a did:key`);
};

/** Grants account `did` a role (a `sys.member` record); `none` takes its role away. */
export async function setRole(space: OpenSpace, did: string, role: Role | 'none'): Promise<void> {
  checkDid(did, 'a member');
  await space.write(MEMBER_COLLECTION, didRecordId(did), { role });
}

/** Lets `did` hold the space as a host or carrier, or (`undefined`) no longer. */
export async function setHolder(
  space: OpenSpace,
  did: string,
  kind: HolderKind | undefined,
): Promise<void> {
  checkDid(did, 'a holder');
  await space.write(HOLDER_COLLECTION, didRecordId(did), kind === undefined ? null : { kind });
}

/** Offers `role` to whoever holds `inviteKey` (a `sys.invite` record). Returns its version. */
export function offer(space: OpenSpace, inviteKey: SigningKey, role: Role): Promise<Version> {
  return space.write(INVITE_COLLECTION, didRecordId(inviteKey.did), { role });
}

/**
 * Takes the role invite `inviteKey` offers, for this node's account: its own `sys.accept`
 * record, with the invite key's proof and this writer's certificates, then its writer record.
 */
export async function accept(space: OpenSpace, inviteKey: SigningKey): Promise<Role> {
  const { account, chain } = space.identity;
  const invite = didRecordId(inviteKey.did);
  const proof = await inviteKey.sign(acceptProof(space.id, account));
  await space.serialized(async () => {
    const body = { invite, did: account, proof, ...(chain.length > 0 ? { chain } : {}) };
    const version = await space.seal(ACCEPT_COLLECTION, acceptRecordId(invite, account), body);
    if (!(await space.mayTakeIn([version]))[0])
      throw new MincaError(
        'not_authorized',
        'the invite is not offered in this space, or was withdrawn',
      );
    await space.takeIn([version]);
  });
  await space.publishWriter();
  const role = await space.roleOf(account);
  if (!role) throw new MincaError('not_authorized', 'the invite gave no role here');
  return role;
}

/**
 * The versions that give account `did` its role here: the owner's grants, `did`'s acceptances
 * with the offers they take, and the writer records of `did` and of the owner. A peer that
 * doesn't know `did` yet is shown these (sync handshake).
 */
export async function credentials(space: OpenSpace, did: string): Promise<Version[]> {
  const ids = (await space.membership()).credentialIds(did);
  return (await space.store.getVersions(ids)).filter((v): v is Version => v !== undefined);
}

/**
 * Writes this node's `sys.writer` record, once per chain: it ties the writer key to the
 * account, so what it writes counts for the account everywhere (spec 05 §6). `published` is
 * the writer version last known to carry the current chain; returns the one that does now.
 */
export async function publishWriter(
  space: OpenSpace,
  published: string | undefined,
): Promise<string | undefined> {
  const { chain } = space.identity;
  if (chain.length === 0) return published;
  const current = await space.store.record(WRITER_COLLECTION, didRecordId(space.writer));
  const winner = current?.winner();
  if (winner && winner.id === published) return published;
  if (winner && (await holdsChain(space, winner, chain))) return winner.id;
  const version = await space.seal(WRITER_COLLECTION, didRecordId(space.writer), { chain });
  await space.takeIn([version]);
  return version.id;
}

/** Whether the writer record `meta` (this node's own) carries exactly `chain`. */
export async function holdsChain(
  space: OpenSpace,
  meta: { id: string; author: string },
  chain: readonly Uint8Array[],
): Promise<boolean> {
  if (meta.author !== space.writer) return false;
  const version = await space.store.getVersion(meta.id);
  let known: Uint8Array[] | undefined;
  try {
    known = version ? readWriterChain(openWithKeys(version, space.keys)) : undefined;
  } catch {
    return false;
  }
  return (
    known !== undefined &&
    known.length === chain.length &&
    known.every((c, i) => c.length === chain[i]!.length && c.every((x, j) => x === chain[i]![j]))
  );
}

/** Whether `version` is of a kind {@link credentials} gives for `did`; the intake judges the rest. */
export function isCredentialOf(space: OpenSpace, version: Version, did: string): boolean {
  if (version.space !== space.id) return false;
  switch (version.collection) {
    case ACCEPT_COLLECTION:
    case INVITE_COLLECTION:
    case WRITER_COLLECTION:
      return true;
    case MEMBER_COLLECTION:
      return version.record === didRecordId(did);
    default:
      return false;
  }
}

/**
 * Changes the space's key (spec 05 §7.4): a fresh key wrapped for every writer of every member
 * now, in `sys.key/k<n>`; what this node writes next is sealed under it. Gives the entry to
 * keep in the registry. Owner only.
 */
export async function rotateKey(space: OpenSpace) {
  const epoch = (await space.keyRing()).highest + 1;
  const recipients = keyRecipients(await space.membership());
  const { key, body } = newKeyRecord(space.id, epoch, recipients);
  await space.write(KEY_COLLECTION, keyRecordId(epoch), body);
  // Taking the record in learned it (the owner is among its recipients), and chose the key to
  // seal under: the epoch's winner, should another device of the owner have changed it too.
  return space.keys.some((k) => k.every((x, i) => x === key[i]))
    ? space.entry
    : space.addKeys([key]);
}

/**
 * Wraps the space's later keys for members the owner's key records left out (their acceptance
 * came after a key changed), in another version of each such record, sealed as the first was
 * under the key before it: a member holding only the first key learns each in turn. Owner
 * only; nothing when everyone is covered.
 */
export async function rewrapKeys(space: OpenSpace): Promise<void> {
  const membership = await space.membership();
  const ring = await space.keyRing();
  const recipients = keyRecipients(membership);
  for (let epoch = 1; epoch <= ring.learned; epoch++) {
    const wrapped = await wrappedFor(space, membership, epoch);
    if (recipients.every((did) => wrapped.has(did))) continue;
    const keys = ring.epochs.get(epoch)!;
    const before = ring.epochs.get(epoch - 1)!;
    const body = keyRecordFor(space.id, epoch, keys[keys.length - 1]!, recipients);
    await space.write(KEY_COLLECTION, keyRecordId(epoch), body, before[before.length - 1]);
  }
}

/**
 * The owner's node changes the key once the newest key reached a key that may no longer read:
 * a revoked device's or writer's, whichever device of whichever account removed it (spec 05
 * §7.4). The first key went to everyone who joined, so any revocation of a member's key calls
 * for a change; a later one went to those its record wraps it for. Gives the entry to keep, or
 * nothing when no change is due.
 */
export async function rotateAfterRevocations(space: OpenSpace) {
  const membership = await space.membership();
  const { highest } = await space.keyRing();
  let due: boolean;
  if (highest === 0) {
    const members = membership.members();
    due = [...membership.revocations().values()].some((r) => members.has(r.account));
  } else {
    const recipients = new Set(keyRecipients(membership));
    const wrapped = await wrappedFor(space, membership, highest);
    due = [...wrapped].some((did) => !recipients.has(did));
  }
  return due ? rotateKey(space) : undefined;
}

/** Keeps the root's revocation `statement` of `subject` in the space (a `sys.revoke` record). */
export async function writeRevocation(
  space: OpenSpace,
  subject: string,
  statement: Uint8Array,
): Promise<void> {
  await space.write(REVOKE_COLLECTION, REVOKE_RECORD(subject), { r: statement });
}
