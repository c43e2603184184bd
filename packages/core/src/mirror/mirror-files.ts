/**
 * Files in a mirror (spec 05 §16.4): each file a node holds whole, and records name, goes under
 * `files/<space>/<writer>/<file id>/` as its sealed chunks and its list; files no longer named
 * are deleted there. A mirror is also a source `readFile` falls back to after peers. Chunks and
 * lists are checked against the file id by the fetcher, so a mirror needs no trust.
 */
import type { BlobStore } from '../blob-store.js';
import type { AbortSignalLike } from '../files/abort.js';
import type { FileSource } from '../files/source.js';
import { VERSION_HEX } from '../ids.js';

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
    if (!named.has(id) || known.get(id)) continue;
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

/** A mirror as a place `readFile` fetches from, after peers: any writer's copy will do. */
export class MirrorFileSource implements FileSource {
  /** Writers found holding each file, from the last listing. */
  readonly #holders = new Map<string, string[]>();

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
    const prefix = filesPrefix(this.space);
    const holders: string[] = [];
    for (const key of await this.store.list(prefix)) {
      const [writer, file, part, extra] = key.slice(prefix.length).split('/');
      if (file === id && part === 'list' && extra === undefined && writer) holders.push(writer);
    }
    this.#holders.set(id, holders);
    for (const writer of holders) {
      const bytes = await this.store.get(`${prefix}${writer}/${id}/list`);
      if (bytes) return bytes;
    }
    return null;
  }

  async chunk(id: string, n: number, _signal?: AbortSignalLike): Promise<Uint8Array | null> {
    if (!this.#holders.has(id)) await this.list(id);
    for (const writer of this.#holders.get(id) ?? []) {
      const bytes = await this.store.get(`${filesPrefix(this.space)}${writer}/${id}/${n}`);
      if (bytes) return bytes;
    }
    return null;
  }
}
