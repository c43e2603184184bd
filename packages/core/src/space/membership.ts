/**
 * Who may do what in a space, read from the space's own records (spec 05 §7):
 *
 * - the owner (the space's creator) is `owner`;
 * - `sys.member/<did suffix>` `{ role }` grants a role, counted only when the owner wrote it;
 * - `sys.invite/<invite id>` `{ role }` (by the owner) offers a role to whoever holds the
 *   invite's secret key; `sys.accept/<invite id>` `{ did, proof }` takes it: written by `did`,
 *   with `proof` the invite key's signature of ("minca/accept/v1", space, did). One record per
 *   invite, so its winner is the one who got it.
 */
import type { BodyValue } from '../body.js';
import { encodeCbor } from '../encoding.js';
import { verifySignature } from '../keys.js';
import type { RecordState } from '../record-state.js';
import { openBody, type Version } from '../version.js';
import type { SpaceView } from './space-view.js';

export const MEMBER_COLLECTION = 'sys.member';
export const INVITE_COLLECTION = 'sys.invite';
export const ACCEPT_COLLECTION = 'sys.accept';

export type Role = 'owner' | 'writer' | 'reader';
const ROLES: readonly string[] = ['owner', 'writer', 'reader'];

/** What membership is judged against: a member's view of the space, with its owner and key. */
export type MemberView = Pick<SpaceView, 'id' | 'store'> & { owner: string; key: Uint8Array };

const DID_PREFIX = 'did:key:';
/** A DID as a record id: without its `did:key:` prefix. */
export const didRecordId = (did: string) => did.slice(DID_PREFIX.length);

/** The bytes an invite key signs to hand its role to `did`. */
export function acceptProof(space: string, did: string): Uint8Array {
  return encodeCbor(['minca/accept/v1', space, did]);
}

function field(body: BodyValue | null | undefined, name: string): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) && !(body instanceof Uint8Array)
    ? (body as Record<string, BodyValue>)[name]
    : undefined;
}

async function winnerBody(facts: MemberView, record: RecordState | undefined, author?: string) {
  const winner = record?.winner();
  if (!winner || winner.deleted || (author !== undefined && winner.author !== author))
    return undefined;
  const version = await facts.store.getVersion(winner.id);
  if (!version) return undefined;
  try {
    return { version, body: openBody(version, facts.key) };
  } catch {
    return undefined;
  }
}

/** The role offered by invite `inviteId`, if the owner offered one. */
async function invitedRole(facts: MemberView, inviteId: string): Promise<Role | undefined> {
  const record = facts.store.collection(INVITE_COLLECTION)?.records.get(inviteId);
  const role = field((await winnerBody(facts, record, facts.owner))?.body, 'role');
  return typeof role === 'string' && ROLES.includes(role) ? (role as Role) : undefined;
}

/** The role an accept version takes, when it is a valid acceptance of a standing invite. */
export async function acceptedRole(facts: MemberView, version: Version): Promise<Role | undefined> {
  if (version.collection !== ACCEPT_COLLECTION || version.sealedBody === null) return undefined;
  let body: BodyValue | null;
  try {
    body = openBody(version, facts.key);
  } catch {
    return undefined;
  }
  const proof = field(body, 'proof');
  if (field(body, 'did') !== version.author || !(proof instanceof Uint8Array)) return undefined;
  if (
    !(await verifySignature(
      DID_PREFIX + version.record,
      acceptProof(facts.id, version.author),
      proof,
    ))
  )
    return undefined;
  return invitedRole(facts, version.record);
}

/** Every member and their role, as the space's records say now. */
export async function readMembers(facts: MemberView): Promise<Map<string, Role>> {
  const members = new Map<string, Role>([[facts.owner, 'owner']]);
  for (const [inviteId, record] of facts.store.collection(ACCEPT_COLLECTION)?.records ?? []) {
    const accepted = await winnerBody(facts, record);
    if (!accepted || accepted.version.record !== inviteId) continue;
    const role = await acceptedRole(facts, accepted.version);
    if (role) members.set(accepted.version.author, role);
  }
  // The owner's own grants come last: they override what an invite gave.
  for (const [id, record] of facts.store.collection(MEMBER_COLLECTION)?.records ?? []) {
    const role = field((await winnerBody(facts, record, facts.owner))?.body, 'role');
    if (typeof role === 'string' && ROLES.includes(role))
      members.set(DID_PREFIX + id, role as Role);
  }
  members.set(facts.owner, 'owner');
  return members;
}
