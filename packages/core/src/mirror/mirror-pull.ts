/**
 * Pulling a space from its mirror (spec 05 §16.4): list the space's segments, read those not
 * read yet, and take in what they hold through the intake, exactly as a peer's versions. A
 * segment that vanished under the listing (compacted away) sends the pull round again.
 */
import { MincaError } from '../errors.js';
import { admit, decodeIncoming, verifyIncoming } from '../intake.js';
import type { Version } from '../version.js';
import { asMincaError, eachLimited, type MirrorContext } from './mirror-context.js';
import {
  decodeSegment,
  parseSegmentKey,
  type SegmentName,
  spacePrefix,
  writerPrefix,
} from './segment.js';

/** Versions taken in at once. */
const TAKE_IN_BATCH = 2000;
/** Listings per pull when segments vanish under it (a compaction): each finds the newer ones. */
const MAX_PASSES = 4;

export class MirrorPull {
  /** Segments already reported as skipped, so a damaged one is told once. */
  readonly #reported = new Set<string>();

  constructor(private readonly mirror: MirrorContext) {}

  async run(): Promise<void> {
    const { space, state, store } = this.mirror;
    const prefix = spacePrefix(space.id);
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const listed: SegmentName[] = [];
      for (const key of await store.list(prefix)) {
        const name = parseSegmentKey(key);
        if (name && name.space === space.id) listed.push(name);
      }
      await this.noteOwn(listed);
      const listedKeys = new Set(listed.map((n) => n.key));
      // Others' segments gone from the listing (compacted away) needn't be remembered.
      const gone = [...state.read].filter(
        (key) =>
          key.startsWith(prefix) &&
          !listedKeys.has(key) &&
          !key.startsWith(writerPrefix(space.id, state.writer)),
      );
      await state.forget(gone);
      const unread = listed.filter((n) => !state.read.has(n.key));
      if (unread.length === 0) break;
      const vanished = await this.#read(unread);
      if (!vanished) break;
    }
    this.mirror.times.pulledAt = this.mirror.now();
  }

  /** Keeps track of this writer's own segments, and moves its counter past what it finds. */
  async noteOwn(listed: readonly SegmentName[]): Promise<void> {
    const { state, own } = this.mirror;
    let highest = -1;
    for (const name of listed) {
      if (name.writer !== state.writer) continue;
      own.add(name.key);
      highest = Math.max(highest, name.counter);
    }
    if (highest >= 0) await state.passed(highest);
  }

  /** Reads segments and takes in what they hold. True when some vanished before being read. */
  async #read(names: readonly SegmentName[]): Promise<boolean> {
    const { space, state, store, counts, sizes } = this.mirror;
    let vanished = false;
    const found: Array<{ name: SegmentName; ids: string[] }> = [];
    const pending = new Map<string, Version>();
    await eachLimited(names, async (name) => {
      const bytes = await store.get(name.key);
      if (bytes === null) {
        vanished = true;
        return;
      }
      counts.segmentsRead++;
      try {
        const versions = await this.#verify(name, bytes);
        for (const v of versions) {
          pending.set(v.id, v);
          sizes.set(v.id, v.bytes.length);
        }
        found.push({ name, ids: versions.map((v) => v.id) });
      } catch (error) {
        const e = asMincaError(error, `reading segment ${name.key}`);
        this.#reportOnce(e, name.key);
        // A segment whose bytes check out but hold a bad version is hostile: never read again.
        // One that doesn't hash to its name may be half copied, and is read again next time.
        if (e.code !== 'malformed') await state.learn([name.key], []);
      }
    });
    await this.#takeIn([...pending.values()]);
    const done: string[] = [];
    const known: string[] = [];
    for (const { name, ids } of found) {
      const held = ids.filter((id) => space.store.hasVersion(pending.get(id)!.collection, id));
      known.push(...held);
      if (held.length === ids.length) done.push(name.key);
      else {
        // Left unread: the grant that lets their author write may come in a later segment.
        this.#reportOnce(
          new MincaError(
            'not_authorized',
            `segment ${name.key} holds ${ids.length - held.length} versions whose authors may not write`,
          ),
          name.key,
        );
      }
    }
    await state.learn(done, known);
    return vanished;
  }

  #reportOnce(error: MincaError, segment: string): void {
    if (this.#reported.has(segment)) return;
    this.#reported.add(segment);
    this.mirror.report(error, segment);
  }

  /** Decodes a segment and checks every version in it as a peer's would be checked. */
  async #verify(name: SegmentName, bytes: Uint8Array): Promise<Version[]> {
    const segment = decodeSegment(name, bytes);
    let versions: Version[];
    try {
      versions = decodeIncoming(segment.versions);
    } catch (cause) {
      // The segment's bytes are as written (its hash says so): what it holds is bad, for good.
      throw new MincaError('invalid_version', `segment ${name.key} holds a bad version`, { cause });
    }
    try {
      await verifyIncoming(this.mirror.space, versions);
    } catch (cause) {
      throw new MincaError(
        'invalid_version',
        `segment ${name.key} holds a version that does not verify here: ${(cause as Error).message}`,
        { cause },
      );
    }
    return versions;
  }

  /**
   * Takes in what may be taken in. A holder's policy counts versions from a mirror against the
   * account that brought the space; refused, the pull fails with the reason and stores none.
   */
  async #takeIn(versions: Version[]): Promise<void> {
    const { space, counts } = this.mirror;
    const { taken, refused } = await admit(
      space,
      versions,
      { mirror: true },
      { batch: TAKE_IN_BATCH },
    );
    counts.versionsTakenIn += taken.length;
    if (refused) {
      throw new MincaError(
        'not_authorized',
        `the holding policy refuses versions of space ${space.id} from a mirror: ${refused.reason}`,
      );
    }
  }
}
