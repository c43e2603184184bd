/**
 * Reading a space's membership records into facts (spec 05 §6, §7): writers and their
 * accounts, revocations, the owner's grants, invites and their acceptances. Signatures inside
 * bodies (certificates, revocations, invite proofs) are checked once per version and kept.
 */
import type { BodyValue } from '../body.js';
import { encodeCbor } from '../encoding.js';
import { type Revocation, verifyRevocation } from '../identity/certificate.js';
import { verifyChain, type WriterIdentity } from '../identity/writer-chain.js';
import { verifySignature } from '../keys.js';
import type { VersionMeta } from '../record-state.js';
import { openWithKeys, type Version } from '../version.js';
import { acceptRecordId, didRecordId, recordDid } from './record-ids.js';
import type { SpaceView } from './space-view.js';

/** What membership is judged against: a member's view of the space, its owner and its keys. */
export type MemberView = Pick<SpaceView, 'id' | 'store'> & {
  owner: string;
  /** Every key of the space, oldest first. */
  keys: readonly Uint8Array[];
  /** Checks kept between readings, by version id. */
  checked: Map<string, unknown>;
};

export const MEMBER_COLLECTION = 'sys.member';
export const INVITE_COLLECTION = 'sys.invite';
export const ACCEPT_COLLECTION = 'sys.accept';
export const WRITER_COLLECTION = 'sys.writer';
export const REVOKE_COLLECTION = 'sys.revoke';

export type Role = 'owner' | 'writer' | 'reader';
const ROLES: readonly string[] = ['owner', 'writer', 'reader'];

export interface Facts {
  writers: Map<string, WriterIdentity>;
  /** The version id of each writer's `sys.writer` record. */
  writerRecords: Map<string, string>;
  /** The earliest revocation of each device or writer, with its signed statement. */
  revoked: Map<string, { at: number; account: string; statement: Uint8Array }>;
  /** The owner's grants per account, by time; `role` undefined for a withdrawn grant. */
  grants: Map<string, Array<{ at: number; role: Role | 'none' | undefined }>>;
  /** The roles accounts took with invites, by time. */
  accepted: Map<string, Array<{ at: number; role: Role }>>;
  /** Version ids of the valid acceptances. */
  acceptances: Set<string>;
  /** The accounts that accepted each invite, earliest first. */
  acceptors: Map<string, string[]>;
  /** Per account, the ids of the versions that give it its role. */
  credentials: Map<string, string[]>;
  /** Each invite the owner offered: the role, when, until when, and the offer's version. */
  offers: Map<string, Offer>;
}

export interface Offer {
  at: number;
  role: Role;
  withdrawn: number;
  id: string;
}

/** The bytes an invite key signs to hand its role to the account `did`. */
export function acceptProof(space: string, did: string): Uint8Array {
  return encodeCbor(['minca/accept/v1', space, did]);
}

function field(body: BodyValue | null | undefined, name: string): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) && !(body instanceof Uint8Array)
    ? (body as Record<string, BodyValue>)[name]
    : undefined;
}

const byTime = (a: VersionMeta, b: VersionMeta) =>
  a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1);

/** Every version of `collection`, with its body opened; those that won't open are left out. */
async function opened(view: MemberView, collection: string) {
  const metas = (await view.store.metas(collection)).sort(byTime);
  const versions = await view.store.getVersions(metas.map((m) => m.id));
  const out: Array<{ meta: VersionMeta; version: Version; body: BodyValue | null }> = [];
  metas.forEach((meta, i) => {
    const version = versions[i];
    if (!version) return;
    try {
      out.push({ meta, version, body: openWithKeys(version, view.keys) });
    } catch {
      // A body that won't open counts for nothing.
    }
  });
  return out;
}

/** Runs `check` once per version id, keeping its result (a failure is kept as `null`). */
async function once<T>(view: MemberView, id: string, check: () => Promise<T>): Promise<T | null> {
  if (view.checked.has(id)) return view.checked.get(id) as T | null;
  let result: T | null;
  try {
    result = await check();
  } catch {
    result = null;
  }
  view.checked.set(id, result);
  return result;
}

/** The chain a `sys.writer` or `sys.accept` body carries, as byte strings; `undefined` if none. */
export function readWriterChain(body: BodyValue | null | undefined): Uint8Array[] | undefined {
  const chain = field(body, 'chain');
  if (!Array.isArray(chain) || !chain.every((c) => c instanceof Uint8Array)) return undefined;
  return chain as Uint8Array[];
}

/**
 * The account `writer` wrote for at `at` in space `space`: its certified account (or itself,
 * uncertified), unless its key or its device was revoked by that account at or before `at`, or
 * it is limited to other spaces.
 */
export function accountOf(
  facts: Facts,
  space: string,
  writer: string,
  at: number,
): string | undefined {
  const identity = facts.writers.get(writer);
  const account = identity?.account ?? writer;
  for (const subject of [writer, identity?.device]) {
    const revoked = subject === undefined ? undefined : facts.revoked.get(subject);
    if (revoked && at >= revoked.at && revoked.account === account) return undefined;
  }
  if (identity?.spaces && !identity.spaces.includes(space)) return undefined;
  return account;
}

/**
 * Whether `version` (a `sys.accept`) is a valid acceptance by the facts so far: of an invite
 * offered then, with the invite key's proof for `did`, written by a writer of `did` (its chain
 * in the body ties it to `did` before its `sys.writer` arrives).
 */
export async function checkAcceptance(
  view: MemberView,
  facts: Facts,
  offers: ReadonlyMap<string, Offer>,
  meta: Pick<VersionMeta, 'record' | 'author' | 'timestamp'>,
  version: Version,
  body: BodyValue | null,
) {
  const invite = field(body, 'invite');
  const did = field(body, 'did');
  const proof = field(body, 'proof');
  if (typeof invite !== 'string' || typeof did !== 'string' || !(proof instanceof Uint8Array))
    return undefined;
  if (meta.record !== acceptRecordId(invite, did)) return undefined;
  const offer = offers.get(invite);
  if (!offer || meta.timestamp >= offer.withdrawn) return undefined;
  const chain = readWriterChain(body) ?? [];
  const identity = await once(view, version.id, async () => {
    const identity = await verifyChain(meta.author, chain);
    const proven = await verifySignature(recordDid(invite), acceptProof(view.id, did), proof);
    return proven ? identity : null;
  });
  if (!identity || identity.account !== did) return undefined;
  // A writer limited to other spaces can't take a role here for its account.
  if (identity.spaces && !identity.spaces.includes(view.id)) return undefined;
  const known = facts.writers.get(meta.author);
  if (known && known.account !== did) return undefined;
  return { did, invite, offer, identity };
}

/** Whether `version` (a `sys.writer`) is its author's own valid record, and who it writes for. */
export async function checkWriterRecord(
  view: MemberView,
  meta: Pick<VersionMeta, 'record' | 'author'>,
  version: Version,
  body: BodyValue | null,
): Promise<WriterIdentity | undefined> {
  const chain = readWriterChain(body);
  if (!chain || meta.record !== didRecordId(meta.author)) return undefined;
  return (await once(view, version.id, () => verifyChain(meta.author, chain))) ?? undefined;
}

export async function readFacts(view: MemberView): Promise<Facts> {
  const facts: Facts = {
    writers: new Map(),
    writerRecords: new Map(),
    revoked: new Map(),
    grants: new Map(),
    accepted: new Map(),
    acceptances: new Set(),
    acceptors: new Map(),
    credentials: new Map(),
    offers: new Map(),
  };
  const credit = (did: string, id: string) => {
    const list = facts.credentials.get(did) ?? [];
    if (!list.includes(id)) list.push(id);
    facts.credentials.set(did, list);
  };
  for (const { version, body } of await opened(view, REVOKE_COLLECTION)) {
    const statement = field(body, 'r');
    if (!(statement instanceof Uint8Array)) continue;
    const revocation = await once<Revocation>(view, version.id, () => verifyRevocation(statement));
    if (!revocation) continue;
    const known = facts.revoked.get(revocation.subject);
    if (!known || revocation.at < known.at)
      facts.revoked.set(revocation.subject, {
        at: revocation.at,
        account: revocation.account,
        statement,
      });
  }
  for (const { meta, version, body } of await opened(view, WRITER_COLLECTION)) {
    const identity = await checkWriterRecord(view, meta, version, body);
    if (!identity) continue;
    // The latest record of a writer wins: it may have been certified again.
    facts.writers.set(meta.author, identity);
    facts.writerRecords.set(meta.author, version.id);
  }
  const accountAt = (writer: string, at: number) => accountOf(facts, view.id, writer, at);
  const byOwner = (meta: VersionMeta) => accountAt(meta.author, meta.timestamp) === view.owner;

  for (const { meta, version, body } of await opened(view, MEMBER_COLLECTION)) {
    if (!byOwner(meta)) continue;
    const did = recordDid(meta.record);
    const role = body === null ? undefined : field(body, 'role');
    if (
      role !== undefined &&
      role !== 'none' &&
      !(typeof role === 'string' && ROLES.includes(role))
    )
      continue;
    const events = facts.grants.get(did) ?? [];
    events.push({ at: meta.timestamp, role: role as Role | 'none' | undefined });
    facts.grants.set(did, events);
    credit(did, version.id);
  }
  // Each invite's offer: the role from the owner's first version; withdrawn at a later tombstone.
  const offers = new Map<string, Offer>();
  for (const { meta, version, body } of await opened(view, INVITE_COLLECTION)) {
    if (!byOwner(meta)) continue;
    const offer = offers.get(meta.record);
    const role = field(body, 'role');
    if (!offer && typeof role === 'string' && ROLES.includes(role))
      offers.set(meta.record, {
        at: meta.timestamp,
        role: role as Role,
        withdrawn: Infinity,
        id: version.id,
      });
    else if (offer && body === null) offer.withdrawn = Math.min(offer.withdrawn, meta.timestamp);
  }
  for (const { meta, version, body } of await opened(view, ACCEPT_COLLECTION)) {
    const accepted = await checkAcceptance(view, facts, offers, meta, version, body);
    if (!accepted) continue;
    const { did, invite, offer, identity } = accepted;
    if (!facts.writers.has(meta.author) && identity.chain.length > 0)
      facts.writers.set(meta.author, identity);
    facts.acceptances.add(version.id);
    const events = facts.accepted.get(did) ?? [];
    events.push({ at: meta.timestamp, role: offer.role });
    facts.accepted.set(did, events);
    const acceptors = facts.acceptors.get(invite) ?? [];
    if (!acceptors.includes(did)) acceptors.push(did);
    facts.acceptors.set(invite, acceptors);
    credit(did, version.id);
    credit(did, offer.id);
  }
  facts.offers = offers;
  return facts;
}
