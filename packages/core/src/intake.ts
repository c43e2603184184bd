/**
 * The intake: the one path by which versions from outside get into a space — a peer's `vers`
 * and credentials, a mirror's segments (a data folder's too), an invite code or a ticket.
 *
 * decode (strict, canonical) → verify the signature → check the space → open under the key
 * (members) → admit (`sys.*` first, grants, the holder's policy). Spec 05 §3.4, §8 "Taking
 * versions in", §7.3, §16.4. It works on batches: a message's or a segment's versions go
 * through together, their signatures checked all at once (WebCrypto runs them in parallel).
 */
import { MincaError } from './errors.js';
import { isSystemCollection } from './names.js';
import type { SpaceView, VersionSource } from './space/space-view.js';
import { decodeVersion, openWithKeys, type Version, verifyVersions } from './version.js';
import { openStoredMany } from './version-open.js';

/** Decodes versions from outside, strictly and in their one canonical encoding; no signature yet. */
export function decodeIncoming(frames: readonly Uint8Array[]): Version[] {
  return frames.map((bytes) => decodeVersion(bytes));
}

/**
 * Starts checking the signatures of decoded versions, all at once (WebCrypto runs them on the
 * platform's threads): what {@link verifyIncoming} then awaits rather than checking again, so a
 * message's checks can run while the one before it is being stored. Rejects with the first
 * `invalid_version`; never left unhandled.
 */
export function startVerifying(versions: readonly Version[]): Promise<void> {
  const checks = verifyVersions(versions);
  checks.catch(() => {});
  return checks;
}

/**
 * Starts opening the bodies of decoded versions under a space's `keys`, all together (on the
 * platform's cores where it has them): the versions whose bodies opened and decode as bodies.
 * The inbox starts it ahead of their turn, and {@link verifyIncoming} does not open those again;
 * what did not open then is opened at their turn, here too, under the keys the space has then.
 * Never rejects.
 */
export async function startOpening(
  versions: readonly Version[],
  keys: readonly Uint8Array[],
): Promise<ReadonlySet<Version>> {
  const opened = new Set<Version>();
  if (keys.length === 0) return opened;
  const sealed = versions.filter((v) => v.sealedBody !== null);
  try {
    const bodies = await openStoredMany(
      sealed.map((v) => v.bytes),
      keys,
    );
    sealed.forEach((v, i) => {
      if (bodies[i] !== undefined) opened.add(v);
    });
  } catch {
    // Opened again at their turn, or found not to open then.
  }
  return opened;
}

/** Decodes versions not yet tied to a space here (an invite code, a ticket) and checks every signature. */
export async function verifyDetached(frames: readonly Uint8Array[]): Promise<Version[]> {
  const versions = decodeIncoming(frames);
  await verifyVersions(versions);
  return versions;
}

/** What was done with versions ahead of their turn (the inbox's look-ahead). */
export interface DoneAhead {
  /** The signature checks of {@link checking}, from {@link startVerifying}. */
  verified: Promise<void>;
  /** The versions `verified` stands for: any other is checked at its turn. */
  checking: ReadonlySet<Version>;
  /** Those whose bodies opened, from {@link startOpening} under the space's keys then. */
  opened: ReadonlySet<Version>;
}

/**
 * Checks decoded versions for `space`: each one it does not hold yet must carry a valid
 * signature, be of this space and, where this node has the key, open under one of its keys. The
 * first that fails throws `invalid_version`. Returns the versions not held yet; one held was
 * checked when it came (its id is the hash of its bytes). `ahead` stands for the signature
 * checks and openings started before their turn.
 */
export async function verifyIncoming(
  space: SpaceView,
  versions: readonly Version[],
  ahead?: DoneAhead,
): Promise<Version[]> {
  const fresh = versions.filter((v) => !space.store.hasVersion(v.collection, v.id));
  const unchecked = ahead ? fresh.filter((v) => !ahead.checking.has(v)) : fresh;
  await Promise.all([ahead?.verified, verifyVersions(unchecked)]);
  for (const v of fresh) {
    if (v.space !== space.id)
      throw new MincaError('invalid_version', `version ${v.id} is of another space`);
  }
  if (space.keys.length === 0) return fresh;
  // Opened all together, on the platform's cores where it has them: a joining device's main
  // thread spent a seventh of its time opening each body on receipt.
  const left = fresh.filter((v) => !ahead?.opened.has(v));
  const openedNow = await startOpening(left, space.keys);
  for (const v of left) {
    if (v.sealedBody === null || openedNow.has(v)) continue;
    if (await space.keptUnread?.(fresh)) continue;
    let cause: unknown;
    try {
      openWithKeys(v, space.keys); // again, alone, for what it says is wrong
    } catch (error) {
      cause = error;
    }
    throw new MincaError(
      'invalid_version',
      `version ${v.id} (${v.collection}) does not open under the space key`,
      { cause },
    );
  }
  return fresh;
}

/** What {@link admit} did with a batch. */
export interface Admitted {
  /** The versions stored now. */
  taken: Version[];
  /** Those whose author may not write by what the space holds now: a grant may be on its way. */
  ungranted: Version[];
  /** Those a holder's policy refused, with its reason; nothing of them is stored. */
  refused?: { reason: string; versions: Version[] };
}

export interface AdmitOptions {
  /** Versions stored per commit; all in one by default (one "records changed" per batch). */
  batch?: number;
}

/**
 * Admits verified versions into `space`: the space's own records (`sys.*`) first, since they
 * decide who may write the rest; whatever may be kept is taken in, and when that brought
 * `sys.*` versions, what could not be kept is looked at again. A holder's policy may refuse
 * new data, which is then stored not at all.
 */
export async function admit(
  space: SpaceView,
  versions: readonly Version[],
  from: VersionSource,
  options: AdmitOptions = {},
): Promise<Admitted> {
  const store = space.store;
  let pending = versions.filter((v) => !store.hasVersion(v.collection, v.id));
  pending.sort(
    (a, b) => Number(isSystemCollection(b.collection)) - Number(isSystemCollection(a.collection)),
  );
  const taken: Version[] = [];
  while (pending.length > 0) {
    const allowed = await space.mayTakeIn(pending);
    const ready = pending.filter((_, i) => allowed[i]);
    const later = pending.filter((_, i) => !allowed[i]);
    if (ready.length === 0) break;
    const reason = await space.refusal(from, ready);
    if (reason !== undefined)
      return { taken, ungranted: later, refused: { reason, versions: ready } };
    const batch = options.batch ?? ready.length;
    let grants = false;
    for (let i = 0; i < ready.length; i += batch) {
      const fresh = await space.takeIn(ready.slice(i, i + batch));
      taken.push(...fresh);
      grants ||= fresh.some((v) => isSystemCollection(v.collection));
    }
    pending = later;
    if (!grants) break;
  }
  return { taken, ungranted: pending };
}
