/**
 * Holders: hosts and carriers the owner lets keep a space's ciphertext, in `sys.holder`
 * records (spec 05 §7.3). A holder never reads them (it has no key); members read them to know
 * which holder DIDs they may name the space to.
 */
import type { BodyValue } from '../body.js';
import type { VersionMeta } from '../record-state.js';
import { openWithKeys } from '../version.js';
import type { MemberView } from './membership.js';

export const HOLDER_COLLECTION = 'sys.holder';

/** What a holder does: a host keeps the space for its members; a carrier carries it between them. */
export type HolderKind = 'host' | 'carrier';
const KINDS: readonly string[] = ['host', 'carrier'];

/** Whether `kind` is a holder's kind. */
export const isHolderKind = (kind: unknown): kind is HolderKind =>
  typeof kind === 'string' && KINDS.includes(kind);

const DID_PREFIX = 'did:key:';

/**
 * Every holder the owner allows now, by DID: winners of `sys.holder` written by the owner
 * (`byOwner` tells, through the writers' certificates).
 */
export async function readHolders(
  view: Pick<MemberView, 'store' | 'keys'>,
  byOwner: (meta: VersionMeta) => boolean,
): Promise<Map<string, HolderKind>> {
  const holders = new Map<string, HolderKind>();
  for (const [id, record] of (await view.store.records(HOLDER_COLLECTION)).records) {
    const winner = record.winner();
    if (!winner || winner.deleted || !byOwner(winner)) continue;
    const version = await view.store.getVersion(winner.id);
    if (!version) continue;
    let body: BodyValue | null;
    try {
      body = openWithKeys(version, view.keys);
    } catch {
      continue;
    }
    const kind =
      body && typeof body === 'object' && !Array.isArray(body) && !(body instanceof Uint8Array)
        ? (body as Record<string, BodyValue>).kind
        : undefined;
    if (isHolderKind(kind)) holders.set(DID_PREFIX + id, kind);
  }
  return holders;
}
