/**
 * Files in a mirror (spec 05 §16.4): each file a node holds whole, and records name, goes under
 * `files/<space>/<writer>/<file id>/` as its sealed chunks and its list; files no longer named
 * are deleted there. A mirror is also a source `readFile` falls back to after peers, read one
 * chunk at a time. Chunks and lists are checked against the file id by the fetcher, so a
 * mirror needs no trust.
 */
import { type BlobStore, getBlobRange, listBlobFolders } from '../blob-store.js';
import type { AbortSignalLike } from '../files/abort.js';
import { CHUNK_BYTES, MAX_LIST_BYTES } from '../files/chunks.js';
import type { FileSource } from '../files/source.js';
import { VERSION_HEX } from '../ids.js';
import { SEAL_OVERHEAD } from '../seal.js';

/** What a mirror needs of a space's files. */
export interface MirroredFiles {
  /** Files held whole here. */
  whole(): string[];
  /** Files named by records that stand. */
  named(): Promise<Set<string>>;
  /** A whole file's list bytes and chunk count, or `undefined`. */
  list(id: string): { bytes: Uint8Array; chunks: number } | undefined;
  /** Sealed chunk `n` of a file held here. */
  chunk(id: string, n: number): Promise<Uint8Array | undefined>;
  /** Calls `listener` when the files held whole or named may have changed; gives the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** The mirror holds file `id` whole: its chunks may leave a shelf beside the database. */
  inMirror?(id: string): void;
}

export const FILES_PREFIX = 'files/';
export const filesPrefix = (space: string) => `${FILES_PREFIX}${space}/`;
const writerFiles = (space: string, writer: string) => `${filesPrefix(space)}${writer}/`;
const CHUNK_PART = /^(0|[1-9][0-9]{0,5})$/;

/** Per file under one prefix: whether its list is there, and which chunks. */
function parseListing(keys: readonly string[], prefix: string) {
  const files = new Map<string, { list: boolean; chunks: Set<number> }>();
  for (const key of keys) {
    const [id, part, extra] = key.slice(prefix.length).split('/');
    if (!id || !VERSION_HEX.test(id) || part === undefined || extra !== undefined) continue;
    let file = files.get(id);
    if (!file) files.set(id, (file = { list: false, chunks: new Set() }));
    if (part === 'list') file.list = true;
    else if (CHUNK_PART.test(part)) file.chunks.add(Number(part));
  }
  return files;
}

export interface FilesPushCounts {
  filesPut: number;
  filesDeleted: number;
}

/**
 * Makes this writer's files in the mirror match the files held whole and named here: chunks of a
 * missing file first, its list last (so a list there means its chunks are); deletes files no
 * longer named. `inMirror` is what the writer knows is there, kept between pushes.
 */
export async function pushFiles(
  store: BlobStore,
  space: string,
  writer: string,
  files: MirroredFiles,
  inMirror: Map<string, boolean> | undefined,
  counts: FilesPushCounts,
): Promise<Map<string, boolean>> {
  const prefix = writerFiles(space, writer);
  let known = inMirror;
  if (!known) {
    known = new Map();
    for (const [id, f] of parseListing(await store.list(prefix), prefix)) known.set(id, f.list);
  }
  const named = await files.named();
  for (const id of files.whole()) {
    if (!named.has(id)) continue;
    if (known.get(id)) {
      files.inMirror?.(id);
      continue;
    }
    const list = files.list(id);
    if (!list) continue;
    let complete = true;
    for (let n = 0; n < list.chunks; n++) {
      const chunk = await files.chunk(id, n);
      if (!chunk) {
        complete = false; // dropped or damaged meanwhile: put again once whole
        break;
      }
      await store.put(`${prefix}${id}/${n}`, chunk);
    }
    if (!complete) continue;
    await store.put(`${prefix}${id}/list`, list.bytes);
    known.set(id, true);
    files.inMirror?.(id);
    counts.filesPut++;
  }
  for (const id of [...known.keys()]) {
    if (named.has(id)) continue;
    // The list goes first, so a reader never finds a list whose chunks are being deleted.
    const keys = await store.list(`${prefix}${id}/`);
    const list = `${prefix}${id}/list`;
    if (keys.includes(list)) await store.delete(list);
    for (const key of keys) if (key !== list) await store.delete(key);
    known.delete(id);
    counts.filesDeleted++;
  }
  return known;
}

/** Bytes read of a chunk in a mirror: the largest sealed chunk, and one more to see it's over. */
const CHUNK_READ = CHUNK_BYTES + SEAL_OVERHEAD + 1;
/** Bytes read of a chunk list in a mirror, likewise. */
const LIST_READ = MAX_LIST_BYTES + 1;

/**
 * A mirror as a place `readFile` fetches from, after peers: any writer's copy will do. Each
 * chunk is its own blob, so reading chunk `n` reads that blob only, and no more of it than a
 * chunk can take (a ranged read where the store has one); finding who holds a file lists the
 * writers (`listFolders`), not every file's keys.
 */
export class MirrorFileSource implements FileSource {
  readonly kind = 'mirror' as const;
  /** Per file, the writer whose copy was read last: asked first next time. */
  readonly #holders = new Map<string, string>();
  /** The writers holding files, from the last listing. */
  #writers: Promise<string[]> | undefined;

  constructor(
    private readonly store: BlobStore,
    private readonly space: string,
    private readonly index: number,
  ) {}

  get name(): string {
    return `mirror ${this.index}`;
  }

  async list(id: string): Promise<Uint8Array | null> {
    if (!VERSION_HEX.test(id)) return null;
    // A fetch starts with the list: writers are looked up afresh, as they come and go.
    this.#writers = undefined;
    return this.#read(id, 'list', LIST_READ);
  }

  async chunk(id: string, n: number, _signal?: AbortSignalLike): Promise<Uint8Array | null> {
    if (!VERSION_HEX.test(id) || !Number.isSafeInteger(n) || n < 0) return null;
    return this.#read(id, String(n), CHUNK_READ);
  }

  /** Part `part` of file `id`, from the writer read last, else from each writer in turn. */
  async #read(id: string, part: string, most: number): Promise<Uint8Array | null> {
    const key = (writer: string) => `${writerFiles(this.space, writer)}${id}/${part}`;
    const last = this.#holders.get(id);
    if (last !== undefined) {
      const bytes = await getBlobRange(this.store, key(last), 0, most);
      if (bytes) return bytes;
    }
    for (const writer of await this.#listWriters()) {
      if (writer === last) continue;
      const bytes = await getBlobRange(this.store, key(writer), 0, most);
      if (bytes) {
        this.#holders.set(id, writer);
        return bytes;
      }
    }
    return null;
  }

  #listWriters(): Promise<string[]> {
    if (!this.#writers) {
      const listing = listBlobFolders(this.store, filesPrefix(this.space));
      // A failed listing is not kept: the next read lists again.
      listing.catch(() => {
        if (this.#writers === listing) this.#writers = undefined;
      });
      this.#writers = listing;
    }
    return this.#writers;
  }
}
