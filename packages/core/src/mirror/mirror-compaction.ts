/**
 * Compacting this writer's segments (spec 05 §16.4): once it has 32 or more of its own, and twice
 * as many as its last compaction left, it writes everything the store holds as new segments and
 * then deletes its older ones. Only segments this writer wrote or read are deleted, and only
 * after the new ones are all in, so whatever a reader finds gone is in a newer segment first.
 */
import { eachLimited, type MirrorContext } from './mirror-context.js';
import { type MirrorPush, READ_WINDOW } from './mirror-push.js';
import { parseSegmentKey, writerPrefix } from './segment.js';

export class MirrorCompaction {
  constructor(
    private readonly mirror: MirrorContext,
    private readonly push: MirrorPush,
  ) {}

  async ifDue(): Promise<void> {
    const own = this.mirror.own.size;
    if (own < this.mirror.compactMinSegments || own < 2 * this.mirror.state.compacted) return;
    await this.run();
  }

  /** Compacts now. One that would not shrink the writer's segments by a quarter writes nothing. */
  async run(): Promise<void> {
    const { space, state, store, own, counts } = this.mirror;
    const mine = writerPrefix(space.id, state.writer);
    for (const key of await store.list(mine)) {
      const name = parseSegmentKey(key);
      if (name?.writer === state.writer) own.add(key);
    }
    const before = [...own].filter((key) => state.read.has(key));
    const ids = this.mirror.held(() => true);
    if ((await this.#packCount(ids)) * 4 > before.length * 3) {
      await state.setCompacted(own.size);
      return;
    }
    const written = new Set(await this.push.write(ids));
    const old = before.filter((key) => !written.has(key));
    await eachLimited(old, async (key) => {
      await store.delete(key);
      own.delete(key);
      counts.segmentsDeleted++;
    });
    await state.forget(old);
    await state.setCompacted(own.size);
    counts.compactions++;
  }

  /** How many segments `ids` would pack into: from sizes seen, reading only the others. */
  async #packCount(ids: readonly string[]): Promise<number> {
    const { space, sizes } = this.mirror;
    const target = this.mirror.segmentBytes;
    const unseen = ids.filter((id) => !sizes.has(id));
    for (let i = 0; i < unseen.length; i += READ_WINDOW) {
      const window = unseen.slice(i, i + READ_WINDOW);
      const bodies = await space.store.getVersionBytes(window);
      for (const [j, bytes] of bodies.entries()) if (bytes) sizes.set(window[j]!, bytes.length);
    }
    let count = 0;
    let size = 0;
    for (const id of ids) {
      const length = sizes.get(id);
      if (length === undefined) continue;
      if (size > 0 && size + length > target) {
        count++;
        size = 0;
      }
      size += length;
    }
    return count + (size > 0 ? 1 : 0);
  }
}
