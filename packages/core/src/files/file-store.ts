/**
 * A space's files as entries of its own store (spec 05 §16.6): `f/<id>/list`, `f/<id>/<n>`,
 * `f/<id>/own` and `f/<id>/used`. It keeps in memory what each file takes, never the chunks.
 */
import { decodeStrict, encodeCbor } from '../encoding.js';
import { VERSION_HEX } from '../ids.js';
import type { Store } from '../store.js';
import { chunkChecks } from './chunk-hash.js';
import { type ChunkList, decodeList, sealedLength } from './chunks.js';

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
}

const encodeTime = (ms: number) => encodeCbor(ms);
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

  private constructor(readonly store: Store) {}

  /** Reads what the store holds of files: keys, lists and times, not chunks. */
  static async open(store: Store): Promise<FileStore> {
    const files = new FileStore(store);
    const chunks: Array<[string, number]> = [];
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
      else if (/^(0|[1-9][0-9]{0,5})$/.test(part)) chunks.push([id, Number(part)]);
    }
    for (const [id, n] of chunks) {
      const file = files.#files.get(id)!;
      if (file.list && n < file.list.hashes.length) {
        file.held.add(n);
        file.bytes += sealedLength(file.list.size, n);
      }
    }
    for (const [id, file] of files.#files)
      if (!file.list && file.own === undefined && file.used === undefined) files.#files.delete(id);
    return files;
  }

  /** Reads again what the store holds of files, after another process wrote it. */
  async reload(): Promise<void> {
    const fresh = await FileStore.open(this.store);
    this.#files.clear();
    for (const file of fresh.all()) this.#files.set(file.id, file);
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
    await this.store.commit({
      entries: fresh.map(([n, value]) => ({ key: key(id, n), value })),
    });
    for (const [n] of fresh) {
      if (file.held.has(n)) continue;
      file.held.add(n);
      file.bytes += sealedLength(file.list.size, n);
    }
  }

  /** Sealed chunk `n`, checked against the list; a damaged one is forgotten and reads as absent. */
  async chunk(id: string, n: number): Promise<Uint8Array | undefined> {
    const file = this.#files.get(id);
    if (!file?.list || !file.held.has(n)) return undefined;
    const sealed = await this.store.get(key(id, n));
    if (sealed && (await chunkChecks(file.list, n, sealed))) return sealed;
    // Lost or damaged on disk: fetched again like any chunk not here.
    file.held.delete(n);
    file.bytes -= sealedLength(file.list.size, n);
    await this.store.commit({ entries: [{ key: key(id, n), value: undefined }] });
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
    const keys = [...file.held].map((n) => key(id, n));
    if (forget) keys.push(key(id, 'list'), key(id, 'own'), key(id, 'used'));
    else keys.push(key(id, 'own'));
    await this.store.commit({ entries: keys.map((k) => ({ key: k, value: undefined })) });
    if (forget) this.#files.delete(id);
    else {
      file.held.clear();
      file.bytes = 0;
      delete file.own;
    }
  }
}
