/**
 * Pulling a whole collection (spec 05 §8 "Pulling"): a starter that holds no version of a
 * collection its peer counts some of asks for it a page at a time, in the order of the
 * collection's sync set, rather than reconciling it. Reconciling an empty set brings every id
 * across twice (the peer's id lists, then the wants): 64 bytes a version, of the 250 an initial
 * sync may spend. A pull names only where the last page ended.
 */
import { fromHex, toHex } from '../bytes.js';
import { Bound, compareBounds } from '../negentropy/bound.js';
import { type NegentropySnapshot, snapshotItems } from '../negentropy/set.js';
import type { Store } from '../store.js';
import type { Version } from '../version.js';
import { CURSOR_BYTES, MAX_VERSIONS_PER_MESSAGE, VERS_MESSAGE_BYTES } from './messages.js';
import { type Outgoing, outgoing, READ_PART } from './outgoing.js';
import { STALE_MS } from './pacing.js';
import type { SyncChannel } from './reconciliation.js';

const TWO32 = 0x1_0000_0000;

/** The cursor just past `version`. */
export function cursorOf(version: { timestamp: number; id: string }): Uint8Array {
  const out = new Uint8Array(CURSOR_BYTES);
  const view = new DataView(out.buffer);
  view.setUint32(0, Math.floor(version.timestamp / TWO32));
  view.setUint32(4, version.timestamp >>> 0);
  out.set(fromHex(version.id), 8);
  return out;
}

/** The ids of up to `max` items of `snapshot` above cursor `after` (all, without one), in order. */
export function idsAfter(
  snapshot: NegentropySnapshot,
  after: Uint8Array | undefined,
  max: number,
): string[] {
  const items = snapshotItems(snapshot);
  let from = 0;
  if (after !== undefined) {
    const view = new DataView(after.buffer, after.byteOffset, 8);
    const bound = new Bound().set(view.getUint32(0), view.getUint32(4), after, 8, 32);
    from = items.lowerBound(0, bound);
    if (from < items.n) {
      const at = new Bound();
      items.item(from, at);
      if (compareBounds(at, bound) === 0) from++;
    }
  }
  const to = Math.min(items.n, from + max);
  const packed = items.packedIds(from, to);
  const ids: string[] = [];
  for (let o = 0; o < packed.length; o += 32) ids.push(toHex(packed.subarray(o, o + 32)));
  return ids;
}

/**
 * Bytes of versions in a page: four `vers` messages' worth. A pull's answer is sent as several
 * messages, the last carrying its number, and the side asking takes messages waiting one after
 * another in together (one store transaction for them, spec 05 §8): pages of one message were
 * taken in one commit each, the next page asked for only as each was.
 */
export const PULL_PAGE_BYTES = 4 * VERS_MESSAGE_BYTES;

/**
 * The page a pull asks for: the versions of `collection` past `after`, up to
 * {@link PULL_PAGE_BYTES} and `MAX_VERSIONS_PER_MESSAGE` of them, so a pull costs the side
 * answering it a bounded reading. Read as bytes: the side answering does not decode what the
 * side asking decodes and checks.
 */
export async function pullPage(
  store: Store,
  collection: string,
  after: Uint8Array | undefined,
): Promise<Outgoing[]> {
  const set = store.syncSet(collection);
  const ids = idsAfter(set, after, MAX_VERSIONS_PER_MESSAGE);
  // A collection the cache can hold may well be pulled again (a host's devices catching up on
  // one space); pages of a larger one are read past it (a device joining 100,000 versions).
  const keep = store.fitsBodyCache(set.size);
  // Pages in flight are what a joining device holds at once.
  const budget = PULL_PAGE_BYTES;
  const page: Outgoing[] = [];
  let size = 0;
  // A part at a time: a page of two large versions does not read 256 of them.
  for (let at = 0; at < ids.length; at += READ_PART) {
    for (const v of await outgoing(store, ids.slice(at, at + READ_PART), collection, keep)) {
      if (size + v.bytes.length + 8 > budget) return page;
      page.push(v);
      size += v.bytes.length + 8;
    }
  }
  return page;
}

/** The pulls one side has out to its peer in one space, one page at a time per collection. */
export class CollectionPulls {
  readonly #out = new Map<number, { collection: string; at: number }>();

  constructor(
    private readonly space: string,
    private readonly channel: SyncChannel,
  ) {}

  /** Pulls not answered yet. */
  get size(): number {
    return this.#out.size;
  }

  has(q: number): boolean {
    return this.#out.has(q);
  }

  /** The numbers of the pulls out. */
  numbers(): number[] {
    return [...this.#out.keys()];
  }

  /** Asks for the first page of `collection`. */
  start(collection: string): void {
    this.#ask(collection);
  }

  #ask(collection: string, after?: Uint8Array): void {
    const q = this.channel.nextWant();
    this.#out.set(q, { collection, at: this.channel.now() });
    this.channel.send({
      t: 'pull',
      s: this.space,
      q,
      c: collection,
      ...(after ? { a: after } : {}),
    });
  }

  /**
   * Pull `q` was answered with `versions` (decoded, not checked yet): asks for the next page,
   * past the last of them of its collection, so it travels while these are checked and stored.
   * A page with none of them ends the pull.
   */
  answered(q: number, versions: readonly Version[]): void {
    const pull = this.#out.get(q);
    if (!pull) return;
    this.#out.delete(q);
    let last: Version | undefined;
    for (const v of versions) if (v.collection === pull.collection) last = v;
    if (last) this.#ask(pull.collection, cursorOf(last));
  }

  /** Drops the pulls gone unanswered too long: a later session reconciles what they missed. */
  dropStale(): void {
    const now = this.channel.now();
    for (const [q, pull] of this.#out) if (now - pull.at >= STALE_MS) this.#out.delete(q);
  }
}
