/**
 * A mirror's state in its store `mirrors/<space id>/<n>` (spec 05 §16.3): the writer id, the
 * segment counter, the segments read or written, and the versions known to be in the mirror.
 * Everything is read once when the mirror starts and kept in memory; writes go straight on.
 */
import { bytesToUtf8 } from '@noble/ciphers/utils.js';
import type { EntryWrite, StorageAdapter } from '../adapter.js';
import { utf8 } from '../bytes.js';
import { MincaError } from '../errors.js';
import { randomId, VERSION_HEX } from '../ids.js';
import { MAX_COUNTER, WRITER_ID } from './segment.js';

export const WRITER_KEY = 'mirror:writer';
export const COUNTER_KEY = 'mirror:counter';
/** How many segments the writer's last compaction left, in decimal. */
export const COMPACTED_KEY = 'mirror:compacted';
export const READ_PREFIX = 'mirror:read:';
export const KNOWN_PREFIX = 'mirror:known:';

/** Path of the state store of mirror `n` of a space. */
export const mirrorStatePath = (space: string, n: number) => `mirrors/${space}/${n}`;

const ONE = utf8('1');
const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : bytesToUtf8(bytes);

function decimal(bytes: Uint8Array | undefined, key: string): number {
  const value = text(bytes);
  if (value === undefined) return 0;
  if (!/^\d{1,16}$/.test(value) || Number(value) > MAX_COUNTER + 1)
    throw new MincaError('corrupt', `mirror state ${key} is not a counter`);
  return Number(value);
}

export class MirrorState {
  /** Segment keys read or written. */
  readonly read: Set<string>;
  /** Version ids known to be in the mirror. */
  readonly known: Set<string>;

  private constructor(
    private readonly adapter: StorageAdapter,
    readonly writer: string,
    /** The next counter to use. */
    public counter: number,
    public compacted: number,
    read: Iterable<string>,
    known: Iterable<string>,
  ) {
    this.read = new Set(read);
    this.known = new Set(known);
  }

  /**
   * Reads the state. A store without a writer id (new, or its state lost) gets a new one: a
   * writer never takes up an id whose counter it doesn't know, so it can't overwrite segments.
   */
  static async open(adapter: StorageAdapter): Promise<MirrorState> {
    let writer = text(await adapter.get(WRITER_KEY));
    let counter = 0;
    let compacted = 0;
    try {
      if (writer !== undefined && !WRITER_ID.test(writer))
        throw new MincaError('corrupt', 'mirror state holds a bad writer id');
      counter = decimal(await adapter.get(COUNTER_KEY), COUNTER_KEY);
      compacted = decimal(await adapter.get(COMPACTED_KEY), COMPACTED_KEY);
    } catch {
      // State that doesn't read back is as good as lost: this writer can't know its counter.
      writer = undefined;
    }
    if (writer === undefined) {
      writer = randomId();
      counter = 0;
      compacted = 0;
      // What is left of an old state belongs to a writer nobody is any longer.
      const stale = [
        ...(await adapter.list(READ_PREFIX)),
        ...(await adapter.list(KNOWN_PREFIX)),
        COUNTER_KEY,
        COMPACTED_KEY,
      ];
      await adapter.batch([
        ...stale.map((key) => ({ key, value: undefined })),
        { key: WRITER_KEY, value: utf8(writer) },
      ]);
    }
    const read = (await adapter.list(READ_PREFIX)).map((k) => k.slice(READ_PREFIX.length));
    const known = (await adapter.list(KNOWN_PREFIX))
      .map((k) => k.slice(KNOWN_PREFIX.length))
      .filter((id) => VERSION_HEX.test(id));
    return new MirrorState(adapter, writer, counter, compacted, read, known);
  }

  /**
   * Takes `n` counters for new segments, persisted before any of them is used, so a writer
   * restarted from this state never reuses one. Returns the first.
   */
  async reserve(n: number): Promise<number> {
    const first = this.counter;
    if (first + n > MAX_COUNTER + 1) throw new MincaError('too_large', 'segment counter exhausted');
    await this.adapter.batch([{ key: COUNTER_KEY, value: utf8(String(first + n)) }]);
    this.counter = first + n;
    return first;
  }

  /** Moves the counter past `counter`, when the mirror shows this writer got further. */
  async passed(counter: number): Promise<void> {
    if (counter >= this.counter) await this.reserve(counter + 1 - this.counter);
  }

  /** Records segments read (or written) and the versions now known to be in the mirror. */
  async learn(segments: readonly string[], versions: Iterable<string>): Promise<void> {
    const writes: EntryWrite[] = [];
    for (const key of segments)
      if (!this.read.has(key)) writes.push({ key: READ_PREFIX + key, value: ONE });
    const fresh: string[] = [];
    for (const id of versions) {
      if (this.known.has(id)) continue;
      fresh.push(id);
      writes.push({ key: KNOWN_PREFIX + id, value: ONE });
    }
    if (writes.length > 0) await this.adapter.batch(writes);
    for (const key of segments) this.read.add(key);
    for (const id of fresh) this.known.add(id);
  }

  /** Forgets segments that are gone from the mirror. */
  async forget(segments: readonly string[]): Promise<void> {
    const gone = segments.filter((key) => this.read.has(key));
    if (gone.length === 0) return;
    await this.adapter.batch(gone.map((key) => ({ key: READ_PREFIX + key, value: undefined })));
    for (const key of gone) this.read.delete(key);
  }

  async setCompacted(left: number): Promise<void> {
    await this.adapter.batch([{ key: COMPACTED_KEY, value: utf8(String(left)) }]);
    this.compacted = left;
  }

  async close(): Promise<void> {
    await this.adapter.close?.();
  }
}
