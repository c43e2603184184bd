/**
 * A space's files as entries of its own store (spec 05 §16.6.4): `f/<id>/list`, `f/<id>/<n>`,
 * `f/<id>/own`, `f/<id>/used`, and for a file added from a stream `f/<id>/at`, the temporary id
 * its chunks were written under before its id was known (`f/<at>/<n>`, with `f/<at>/adding`
 * while the add runs). It keeps in memory what each file takes, never the chunks.
 *
 * With a shelf (chunk-shelf.ts), chunks written from then on go there, beside the database, and
 * `f/<at>/<n>` holds a marker; chunks already in the store stay readable, and move to the shelf
 * the first time they are read.
 */
import { decodeStrict, encodeCbor } from '../encoding.js';
import { VERSION_HEX } from '../ids.js';
import { FILE_INDEX_PREFIX, NAMED_FILE_PREFIX } from '../index-entries.js';
import type { Store } from '../store.js';
import { chunkChecks } from './chunk-hash.js';
import { isOutsideMarker, OUTSIDE, type SpaceChunks } from './chunk-shelf.js';
import { type ChunkList, decodeList, sealedLength, sealedSize } from './chunks.js';

export const FILE_PREFIX = 'f/';
const key = (id: string, part: string | number) => `${FILE_PREFIX}${id}/${part}`;

/** What the node knows of one file here. */
export interface HeldFile {
  id: string;
  list?: ChunkList;
  /** Chunk numbers held. */
  held: Set<number>;
  /** Sealed bytes held. */
  bytes: number;
  /** When it was added here; 0 once a record named it; absent when it came from elsewhere. */
  own?: number;
  /** When it was last fetched whole or read. Set and not whole: it was dropped. */
  used?: number;
  /** Added from a stream: the temporary id its chunks are kept under, `f/<at>/<n>`. */
  at?: string;
}

/** Chunks written under a temporary id by an add from a stream not finished (or cut short). */
export interface StagedAdd {
  /** The temporary id. */
  id: string;
  /** When the add last said it is running (`f/<id>/adding`); 0 for chunks nothing claims. */
  since: number;
  /** Chunk numbers written. */
  chunks: Set<number>;
}

const encodeTime = (ms: number) => encodeCbor(ms);
/** `f/<id>/at`: CBOR text, a temporary id; anything else reads as absent. */
function decodeAt(bytes: Uint8Array | undefined): string | undefined {
  if (!bytes) return undefined;
  try {
    const v = decodeStrict(bytes, { maxBytes: 80, maxDepth: 1 });
    return typeof v === 'string' && VERSION_HEX.test(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function decodeTime(bytes: Uint8Array | undefined): number | undefined {
  if (!bytes) return undefined;
  try {
    const v = decodeStrict(bytes, { maxBytes: 16, maxDepth: 1 });
    return Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined;
  } catch {
    return undefined;
  }
}

export class FileStore {
  readonly #files = new Map<string, HeldFile>();
  readonly #staging = new Map<string, StagedAdd>();

  private constructor(
    readonly store: Store,
    private readonly shelf: SpaceChunks | undefined,
  ) {}

  /**
   * Reads what the store holds of files: keys, lists and times, not chunks. With a shelf, a
   * chunk on it that no `f/<at>/<n>` claims (a crash between the two writes) is deleted.
   */
  static async open(store: Store, shelf?: SpaceChunks, sweep = true): Promise<FileStore> {
    const files = new FileStore(store, shelf);
    const chunks: Array<[string, number]> = [];
    const adding = new Map<string, number>();
    for (const k of await store.list(FILE_PREFIX)) {
      const [, id, part, extra] = k.split('/');
      if (!id || !VERSION_HEX.test(id) || part === undefined || extra !== undefined) continue;
      const file = files.#entry(id);
      if (part === 'list') {
        const bytes = await store.get(k);
        try {
          if (bytes) file.list = decodeList(bytes, id);
        } catch {
          // A damaged list reads as absent: the file is fetched again when it is needed.
        }
      } else if (part === 'own') file.own = decodeTime(await store.get(k));
      else if (part === 'used') file.used = decodeTime(await store.get(k));
      else if (part === 'at') file.at = decodeAt(await store.get(k));
      else if (part === 'adding') adding.set(id, decodeTime(await store.get(k)) ?? 0);
      else if (/^(0|[1-9][0-9]{0,5})$/.test(part)) chunks.push([id, Number(part)]);
    }
    const byAt = new Map<string, HeldFile>();
    for (const file of files.#files.values()) if (file.at) byAt.set(file.at, file);
    for (const [id, since] of adding) files.#staging.set(id, { id, since, chunks: new Set() });
    for (const [id, n] of chunks) {
      const file = byAt.get(id) ?? files.#files.get(id);
      if (file?.list && (file.at ?? file.id) === id) {
        if (n < file.list.hashes.length) {
          file.held.add(n);
          file.bytes += sealedLength(file.list.size, n);
        }
        continue;
      }
      // Chunks no file claims: an add cut short, or (with no `adding`) left by nothing known;
      // the keep policy drops them (§16.6.4).
      let staged = files.#staging.get(id);
      if (!staged) files.#staging.set(id, (staged = { id, since: 0, chunks: new Set() }));
      staged.chunks.add(n);
    }
    for (const [id, file] of files.#files)
      if (!file.list && file.own === undefined && file.used === undefined) files.#files.delete(id);
    if (shelf && sweep) {
      const claimed = new Set(chunks.map(([id, n]) => `${id}/${n}`));
      for (const [at, ns] of await shelf.listed()) {
        const stray = [...ns].filter((n) => !claimed.has(`${at}/${n}`));
        if (stray.length > 0) await shelf.delete(at, stray).catch(() => undefined);
      }
    }
    return files;
  }

  /** Reads again what the store holds of files, after another process wrote it. */
  async reload(): Promise<void> {
    // No sweep: a write of this process may be between the shelf and the store right now.
    const fresh = await FileStore.open(this.store, this.shelf, false);
    this.#files.clear();
    for (const file of fresh.all()) this.#files.set(file.id, file);
    this.#staging.clear();
    for (const staged of fresh.staged()) this.#staging.set(staged.id, staged);
  }

  #entry(id: string): HeldFile {
    let file = this.#files.get(id);
    if (!file) this.#files.set(id, (file = { id, held: new Set(), bytes: 0 }));
    return file;
  }

  get(id: string): HeldFile | undefined {
    return this.#files.get(id);
  }

  all(): IterableIterator<HeldFile> {
    return this.#files.values();
  }

  /** Sealed bytes of every file chunk held. */
  heldBytes(): number {
    let sum = 0;
    for (const file of this.#files.values()) sum += file.bytes;
    return sum;
  }

  isWhole(id: string): boolean {
    const file = this.#files.get(id);
    return file?.list !== undefined && file.held.size === file.list.hashes.length;
  }

  /** Whether the file was whole here once and its chunks were dropped since. */
  wasDropped(id: string): boolean {
    const file = this.#files.get(id);
    return file?.used !== undefined && !this.isWhole(id);
  }

  async putList(list: ChunkList): Promise<void> {
    const file = this.#entry(list.id);
    if (file.list) return;
    await this.store.commit({ entries: [{ key: key(list.id, 'list'), value: list.bytes }] });
    file.list = list;
  }

  /** Stores checked chunks `[n, sealed]` of a file whose list is here. */
  async putChunks(id: string, chunks: ReadonlyArray<readonly [number, Uint8Array]>): Promise<void> {
    const file = this.#files.get(id);
    if (!file?.list) throw new Error(`file ${id} has no list here`);
    const fresh = chunks.filter(([n]) => !file.held.has(n));
    if (fresh.length === 0) return;
    await this.#write(file.at ?? id, fresh);
    for (const [n] of fresh) {
      if (file.held.has(n)) continue;
      file.held.add(n);
      file.bytes += sealedLength(file.list.size, n);
    }
  }

  /** Writes chunks under `at`: on the shelf with a marker in the store, else in the store. */
  async #write(at: string, chunks: ReadonlyArray<readonly [number, Uint8Array]>): Promise<void> {
    if (this.shelf) await this.shelf.put(at, chunks);
    await this.store.commit({
      entries: chunks.map(([n, value]) => ({
        key: key(at, n),
        value: this.shelf ? OUTSIDE : value,
      })),
    });
  }

  /** Chunk `n` under `at` as kept, unchecked, from the store or (its entry a marker) the shelf. */
  async #read(at: string, n: number): Promise<{ sealed?: Uint8Array; inStore: boolean }> {
    const value = await this.store.get(key(at, n));
    if (!value) return { inStore: false };
    if (!isOutsideMarker(value)) return { sealed: value, inStore: true };
    const sealed = await this.shelf?.get(at, n).catch(() => undefined);
    return { ...(sealed ? { sealed } : {}), inStore: false };
  }

  /**
   * Sealed chunk `n`, checked against the list. One missing or damaged on the shelf is read
   * again from the node's mirrors (checked too); one found nowhere is forgotten and reads as
   * absent, to be fetched again. A chunk read from the store moves to the shelf, if there is one.
   */
  async chunk(id: string, n: number): Promise<Uint8Array | undefined> {
    const file = this.#files.get(id);
    if (!file?.list || !file.held.has(n)) return undefined;
    const list = file.list;
    const at = file.at ?? id;
    const { sealed, inStore } = await this.#read(at, n);
    if (sealed && (await chunkChecks(list, n, sealed))) {
      if (inStore && this.shelf && file.held.has(n))
        await this.#write(at, [[n, sealed]]).catch(() => undefined);
      return sealed;
    }
    if (this.shelf) {
      const again = await this.shelf.fromBucket(id, n);
      if (again && (await chunkChecks(list, n, again)) && file.held.has(n)) {
        // Its entry is a marker already unless the store held a damaged chunk. Checked, it is
        // served even if it can't be kept (a full disk).
        const keep = inStore ? this.#write(at, [[n, again]]) : this.shelf.put(at, [[n, again]]);
        await keep.catch(() => undefined);
        return again;
      }
    }
    // Lost or damaged: fetched again like any chunk not here.
    if (!file.held.delete(n)) return undefined; // another read found it damaged first
    file.bytes -= sealedLength(list.size, n);
    await this.store.commit({ entries: [{ key: key(at, n), value: undefined }] });
    await this.shelf?.delete(at, [n]).catch(() => undefined);
    return undefined;
  }

  async setOwn(id: string, at: number): Promise<void> {
    await this.store.commit({ entries: [{ key: key(id, 'own'), value: encodeTime(at) }] });
    this.#entry(id).own = at;
  }

  async setUsed(id: string, at: number): Promise<void> {
    await this.store.commit({ entries: [{ key: key(id, 'used'), value: encodeTime(at) }] });
    this.#entry(id).used = at;
  }

  /**
   * Drops a file's chunks. A file that was whole keeps its list and `used`, which mark it as
   * dropped (not fetched again unread); `forget` removes everything.
   */
  async drop(id: string, forget: boolean): Promise<void> {
    const file = this.#files.get(id);
    if (!file) return;
    // Chunks fetched again later go under the file's own id: `at` goes with them.
    const at = file.at ?? id;
    const held = [...file.held];
    const keys = held.map((n) => key(at, n));
    if (forget)
      keys.push(key(id, 'list'), key(id, 'own'), key(id, 'used'), ...(await this.#deadNames(id)));
    else keys.push(key(id, 'own'));
    if (file.at) keys.push(key(id, 'at'));
    await this.store.commit({ entries: keys.map((k) => ({ key: k, value: undefined })) });
    // After the store's entries: a crash between leaves strays, deleted when the store opens.
    await this.shelf?.delete(at, held).catch(() => undefined);
    if (forget) this.#files.delete(id);
    else {
      file.held.clear();
      file.bytes = 0;
      delete file.own;
      delete file.at;
    }
  }

  /** `y/<id>/…` entries of versions no longer heads (their `x/` gone): they name nothing again. */
  async #deadNames(id: string): Promise<string[]> {
    const prefix = `${NAMED_FILE_PREFIX}${id}/`;
    const dead: string[] = [];
    for (const k of await this.store.list(prefix))
      if (!(await this.store.get(`${FILE_INDEX_PREFIX}${k.slice(prefix.length)}`))) dead.push(k);
    return dead;
  }

  // ——— adding from a stream: chunks under a temporary id until the file id is known ———

  /** The adds from a stream under way or cut short, and chunks no file claims. */
  staged(): IterableIterator<StagedAdd> {
    return this.#staging.values();
  }

  /** Starts (or, later, says it is still running) an add under temporary id `id`. */
  async stage(id: string, at: number): Promise<void> {
    await this.store.commit({ entries: [{ key: key(id, 'adding'), value: encodeTime(at) }] });
    const staged = this.#staging.get(id);
    if (staged) staged.since = at;
    else this.#staging.set(id, { id, since: at, chunks: new Set() });
  }

  /** Writes chunks `[n, sealed]` of an add under way; a chunk written already is replaced. */
  async putStaged(id: string, chunks: ReadonlyArray<readonly [number, Uint8Array]>) {
    if (!this.#staging.has(id)) throw new Error(`no add under way as ${id}`);
    await this.#write(id, chunks);
    // Looked up again: a reload meanwhile has read the staging anew.
    const staged = this.#staging.get(id);
    for (const [n] of chunks) staged?.chunks.add(n);
  }

  /** Chunk `n` of an add under way, as written (no list to check it against yet). */
  async stagedChunk(id: string, n: number): Promise<Uint8Array | undefined> {
    if (!this.#staging.get(id)?.chunks.has(n)) return undefined;
    return (await this.#read(id, n)).sealed;
  }

  /**
   * The add under `id` is done and every chunk of `list` is written there: its list, `own` and
   * `at` land in one write, with `adding` gone, so the file is whole from then on, or nothing.
   */
  async finishStaged(id: string, list: ChunkList, own: number): Promise<void> {
    await this.store.commit({
      entries: [
        { key: key(list.id, 'list'), value: list.bytes },
        { key: key(list.id, 'own'), value: encodeTime(own) },
        { key: key(list.id, 'at'), value: encodeCbor(id) },
        { key: key(id, 'adding'), value: undefined },
      ],
    });
    this.#staging.delete(id);
    const file = this.#entry(list.id);
    file.list = list;
    file.own = own;
    file.at = id;
    // Every chunk was written before this (the caller's word: a reload meanwhile may have
    // listed the folder before the last of them landed).
    file.held = new Set(list.hashes.keys());
    file.bytes = sealedSize(list.size);
  }

  /** Removes an add's chunks and its `adding`: it failed, was aborted, or was cut short. */
  async dropStaged(id: string): Promise<void> {
    const staged = this.#staging.get(id);
    const ns = [...(staged?.chunks ?? [])];
    const keys = ns.map((n) => key(id, n));
    keys.push(key(id, 'adding'));
    await this.store.commit({ entries: keys.map((k) => ({ key: k, value: undefined })) });
    await this.shelf?.delete(id, ns).catch(() => undefined);
    this.#staging.delete(id);
  }
}
