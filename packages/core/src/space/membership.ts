/**
 * Who may do what in a space, read from the space's own records (spec 05 §7). Roles belong to
 * accounts; versions are signed by writers, each tied to its account by the certificates in its
 * `sys.writer` record (§6). An account's first role holds from the start, and each change
 * from its own time on, so what stood keeps standing when a role is taken away later:
 *
 * - the owner (the space's creator) is `owner`, always;
 * - `sys.member/<account suffix>` `{ role }` (`none` takes a role away), counted when a writer of
 *   the owner wrote it, from its timestamp on;
 * - `sys.invite/<invite id>` `{ role }` by the owner offers a role to whoever holds the invite's
 *   secret key; each `sys.accept` `{ invite, did, proof, chain? }` takes it for `did`, from its
 *   timestamp on. Every acceptance counts: a second person with the same invite costs the
 *   first nothing, and the owner is told of the double use;
 * - `sys.writer/<writer suffix>` `{ chain }` ties a writer to its account; `sys.revoke`
 *   `{ r }` holds the root's revocation of a device or writer, from its time on.
 */

import type { WriterIdentity } from '../identity/writer-chain.js';
import type { Version } from '../version.js';
import { openWithKeys } from '../version.js';
import {
  ACCEPT_COLLECTION,
  accountOf,
  checkAcceptance,
  checkWriterRecord,
  type Facts,
  type MemberView,
  type Role,
  readFacts,
  WRITER_COLLECTION,
} from './membership-facts.js';

export {
  ACCEPT_COLLECTION,
  acceptProof,
  INVITE_COLLECTION,
  MEMBER_COLLECTION,
  type MemberView,
  REVOKE_COLLECTION,
  type Role,
  readWriterChain,
  WRITER_COLLECTION,
} from './membership-facts.js';
export { acceptRecordId, didRecordId } from './record-ids.js';

/** An invite accepted by more than one account (a forwarded link): the owner is told. */
export interface InviteReuse {
  invite: string;
  /** The accounts that accepted it, earliest first. */
  accounts: string[];
}

/** What the space's records say about membership, read once after each change to `sys.*`. */
export class Membership {
  private constructor(
    private readonly view: MemberView,
    private readonly facts: Facts,
  ) {}

  static async read(view: MemberView): Promise<Membership> {
    return new Membership(view, await readFacts(view));
  }

  private get owner(): string {
    return this.view.owner;
  }

  private get space(): string {
    return this.view.id;
  }

  /**
   * {@link admits} of each version, in order: those whose author may write are answered
   * without a turn each, so a message of versions costs no promise per version.
   */
  async admitsEach(versions: readonly Version[]): Promise<boolean[]> {
    const out: boolean[] = [];
    for (const v of versions)
      out.push(this.mayWrite(v.author, v.timestamp) || (await this.admits(v)));
    return out;
  }

  /**
   * Whether a verified version from outside may be kept now: its writer's account may write at
   * its time, or it is a valid acceptance (which is what gives a role), or a writer's own
   * record tying it to an account with a role.
   */
  async admits(version: Version): Promise<boolean> {
    if (this.mayWrite(version.author, version.timestamp)) return true;
    const own =
      version.collection === ACCEPT_COLLECTION || version.collection === WRITER_COLLECTION;
    if (!own || version.sealedBody === null) return false;
    let body: import('../body.js').BodyValue | null;
    try {
      body = openWithKeys(version, this.view.keys);
    } catch {
      return false;
    }
    if (version.collection === ACCEPT_COLLECTION)
      return (
        (await checkAcceptance(
          this.view,
          this.facts,
          this.facts.offers,
          version,
          version,
          body,
        )) !== undefined
      );
    const identity = await checkWriterRecord(this.view, version, version, body);
    return identity !== undefined && this.roleAt(identity.account, version.timestamp) !== undefined;
  }

  /** The account `writer` wrote for at `timestamp`, when its certificates held then. */
  accountAt(writer: string, timestamp: number): string | undefined {
    return accountOf(this.facts, this.space, writer, timestamp);
  }

  /** The role of account `did` at `timestamp` (`Infinity`: now). */
  roleAt(did: string, timestamp = Number.POSITIVE_INFINITY): Role | undefined {
    if (did === this.owner) return 'owner';
    // A first grant (or acceptance) that gives a role holds from the start, so versions that
    // reached a node before their author's grant stand once it comes; every later change holds
    // from its own time on, so a role taken away leaves what stood standing.
    const grants = this.facts.grants.get(did) ?? [];
    let grant = grants[0]?.role !== undefined && grants[0].role !== 'none' ? grants[0] : undefined;
    for (const event of grants) if (event.at <= timestamp) grant = event;
    if (grant && grant.role !== undefined) return grant.role === 'none' ? undefined : grant.role;
    const accepted = this.facts.accepted.get(did) ?? [];
    let best: Role | undefined = accepted[0]?.role;
    for (const event of accepted)
      if (event.at <= timestamp && rank(event.role) > rank(best)) best = event.role;
    return best;
  }

  /** Whether a version by `writer` at `timestamp` may stand: its account could write then. */
  mayWrite(writer: string, timestamp: number): boolean {
    const account = this.accountAt(writer, timestamp);
    if (account === undefined || this.facts.writers.get(writer)?.role === 'reader') return false;
    const role = this.roleAt(account, timestamp);
    return role === 'owner' || role === 'writer';
  }

  /** The accounts with a role now, and the role. */
  members(): Map<string, Role> {
    const out = new Map<string, Role>([[this.owner, 'owner']]);
    for (const did of new Set([...this.facts.grants.keys(), ...this.facts.accepted.keys()])) {
      const role = this.roleAt(did);
      if (role) out.set(did, role);
    }
    return out;
  }

  /** Who `writer` writes for, by its certificates here; `undefined` for a key of its own. */
  writer(writer: string): WriterIdentity | undefined {
    return this.facts.writers.get(writer);
  }

  /** The writers tied to `account` here, by DID. */
  writersOf(account: string): string[] {
    return [...this.facts.writers.values()]
      .filter((w) => w.account === account)
      .map((w) => w.writer);
  }

  /** Ids of the versions that give account `did` its role: grants, acceptances, offers, writers. */
  credentialIds(did: string): string[] {
    const ids = new Set<string>(this.facts.credentials.get(did) ?? []);
    for (const writer of [...this.writersOf(did), ...this.writersOf(this.owner)]) {
      const id = this.facts.writerRecords.get(writer);
      if (id) ids.add(id);
    }
    return [...ids];
  }

  /** The revocations the space holds, by subject: what from `at` on does not stand. */
  revocations(): ReadonlyMap<string, { at: number; account: string; statement: Uint8Array }> {
    return this.facts.revoked;
  }

  /** Invites accepted by more than one account. */
  reusedInvites(): InviteReuse[] {
    return [...this.facts.acceptors]
      .filter(([, accounts]) => accounts.length > 1)
      .map(([invite, accounts]) => ({ invite, accounts: [...accounts] }))
      .sort((a, b) => (a.invite < b.invite ? -1 : 1));
  }

  /** Whether invite `id` was accepted by someone. */
  isUsed(id: string): boolean {
    return this.facts.acceptors.has(id);
  }
}

const rank = (role: Role | undefined) =>
  role === 'owner' ? 3 : role === 'writer' ? 2 : role === 'reader' ? 1 : 0;
