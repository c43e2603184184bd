/**
 * Pushing a space to its mirror (spec 05 §16.4): what the mirror doesn't know yet goes up as new
 * segments of this writer, then the files held whole and named. Segments are written a window
 * at a time: counters are taken (and persisted) first, then the segments put, then marked read
 * and their versions known.
 */
import { eachLimited, type MirrorContext } from './mirror-context.js';
import { pushFiles } from './mirror-files.js';
import { encodeSegment } from './segment.js';

/** Segments written per counter reservation and state write. */
const WRITE_WINDOW = 8;
/** Bodies read from the store at once while packing. */
export const READ_WINDOW = 2048;

export class MirrorPush {
  /** This writer's files in the mirror (id → whole), once listed; and whether to look again. */
  #filesInMirror: Map<string, boolean> | undefined;
  #filesDirty = true;

  constructor(private readonly mirror: MirrorContext) {}

  /** The space's files changed: they are pushed with the next push. */
  filesChanged(): void {
    this.#filesDirty = true;
  }

  /** Pushes the versions the mirror lacks. Returns the segments written; none when nothing was new. */
  async versions(): Promise<string[] | undefined> {
    const known = this.mirror.state.known;
    const ids = this.mirror.held((id) => !known.has(id));
    if (ids.length === 0) return undefined;
    const written = await this.write(ids);
    this.mirror.counts.versionsPushed += ids.length;
    return written;
  }

  /** Makes this writer's files in the mirror match those held whole and named here. */
  async files(): Promise<void> {
    const { files, store, space, state, counts } = this.mirror;
    if (!files || !this.#filesDirty) return;
    this.#filesDirty = false;
    try {
      this.#filesInMirror = await pushFiles(
        store,
        space.id,
        state.writer,
        files,
        this.#filesInMirror,
        counts,
      );
    } catch (error) {
      this.#filesDirty = true;
      // What is there is unknown now: list again next time.
      this.#filesInMirror = undefined;
      throw error;
    }
  }

  /** Writes `ids` as new segments of this writer. Returns their keys. */
  async write(ids: readonly string[]): Promise<string[]> {
    const { space, state, store, own, counts, sizes } = this.mirror;
    const target = this.mirror.segmentBytes;
    const written: string[] = [];
    let packs: Array<Array<[string, Uint8Array]>> = [];
    let pack: Array<[string, Uint8Array]> = [];
    let size = 0;
    const flush = async () => {
      if (packs.length === 0) return;
      const first = await state.reserve(packs.length);
      const segments = packs.map((versions, i) => ({
        ids: versions.map(([id]) => id),
        ...encodeSegment({
          space: space.id,
          writer: state.writer,
          counter: first + i,
          versions: versions.map(([, bytes]) => bytes),
        }),
      }));
      packs = [];
      await eachLimited(segments, async (s) => {
        await store.put(s.key, s.bytes);
        own.add(s.key);
        counts.segmentsWritten++;
      });
      await state.learn(
        segments.map((s) => s.key),
        segments.flatMap((s) => s.ids),
      );
      written.push(...segments.map((s) => s.key));
    };
    for (let i = 0; i < ids.length; i += READ_WINDOW) {
      const window = ids.slice(i, i + READ_WINDOW);
      const bodies = await space.store.getVersionBytes(window);
      for (const [j, bytes] of bodies.entries()) {
        if (!bytes) continue;
        sizes.set(window[j]!, bytes.length);
        if (pack.length > 0 && size + bytes.length > target) {
          packs.push(pack);
          pack = [];
          size = 0;
          if (packs.length >= WRITE_WINDOW) await flush();
        }
        pack.push([window[j]!, bytes]);
        size += bytes.length;
      }
    }
    if (pack.length > 0) packs.push(pack);
    await flush();
    return written;
  }
}
