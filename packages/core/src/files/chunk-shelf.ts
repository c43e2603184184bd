/**
 * File chunks kept beside the database (spec 05 §16.6.4, "Files beside the database"): one blob
 * per sealed chunk in a blob store of the node's own, `<space id>/<at>/<n>` (a folder on disk,
 * through `createDirectoryBlobStore`), under a byte budget. Past the budget, the files the node's
 * mirrors hold (their list is in the bucket, which a writer puts after every chunk) leave the
 * shelf, least recently used first, down to 90%; a chunk read later comes back from the
 * bucket, checked like any chunk, and goes on the shelf again. A file no mirror holds is never
 * dropped for the budget. The store's entry `f/<at>/<n>` says the chunk is held; its value is a
 * marker ({@link OUTSIDE}) rather than the chunk.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import type { BlobStore } from '../blob-store.js';
import { toHex } from '../bytes.js';
import { MincaError } from '../errors.js';
import { SPACE_ID, VERSION_HEX } from '../ids.js';
import { SEAL_OVERHEAD } from '../seal.js';
import { CHUNK_BYTES } from './chunks.js';
import { KEEP_DOWN_TO } from './limits.js';
import type { FileSource } from './source.js';

/** Where a node keeps file chunks outside its stores, and how much of them. */
export interface FileChunksConfig {
  /** One blob per chunk: `createDirectoryBlobStore(dir)` over a folder beside the database. */
  store: BlobStore;
  /**
   * Bytes of chunks kept in `store` before files the node's mirrors hold leave it, least
   * recently used first. Infinity (the default) keeps everything.
   */
  budget?: number;
}

/** The value of `f/<at>/<n>` for a chunk kept outside the store: shorter than any sealed chunk. */
export const OUTSIDE: Uint8Array = new Uint8Array([0]);
/** Whether an `f/<at>/<n>` value is {@link OUTSIDE}'s marker rather than the chunk itself. */
export const isOutsideMarker = (value: Uint8Array) => value.length < SEAL_OVERHEAD;

/** A chunk found on the shelf at start is counted as this many bytes until it is read. */
const FULL_CHUNK = CHUNK_BYTES + SEAL_OVERHEAD;
/** A file no mirror held is asked about again after this long. */
const NOT_IN_BUCKET_MS = 60_000;
const CHUNK_NUMBER = /^(0|[1-9][0-9]{0,5})$/;

/** The chunks of one file (under `at`) on the shelf. */
interface Shelved {
  space: string;
  at: string;
  /** Bytes of each chunk held. */
  chunks: Map<number, number>;
  bytes: number;
  /** `true` once a mirror was found holding the file; else when it was last found lacking it. */
  inBucket?: true | number;
}

/** One space's view of the shelf, for its {@link FileStore}. */
export interface SpaceChunks {
  /**
   * Chunk numbers on the shelf, per `at`, from a listing of this space's folder alone: the
   * first time only (strays come from a crash before this process), empty after.
   */
  listed(): Promise<Map<string, Set<number>>>;
  get(at: string, n: number): Promise<Uint8Array | undefined>;
  put(at: string, chunks: ReadonlyArray<readonly [number, Uint8Array]>): Promise<void>;
  delete(at: string, ns: Iterable<number>): Promise<void>;
  /** Chunk `n` of file `id` from the node's mirrors, unchecked (the caller checks it). */
  fromBucket(id: string, n: number): Promise<Uint8Array | undefined>;
  /** A mirror pushed file `id` whole, or found it there: its chunks may leave the shelf. */
  inBucket(id: string): void;
}

function checkedKey(space: string, at: string, n?: number): string {
  // Names from a store or a peer become file names: only the shapes written here pass.
  if (
    !SPACE_ID.test(space) ||
    !VERSION_HEX.test(at) ||
    (n !== undefined && !(Number.isSafeInteger(n) && n >= 0))
  )
    throw new MincaError('invalid_input', 'not a chunk this node keeps');
  return n === undefined ? `${space}/${at}` : `${space}/${at}/${n}`;
}

export class ChunkShelf {
  readonly #store: BlobStore;
  readonly #budget: number;
  /** Every file on the shelf, the one used longest ago first, by `<space>/<at>`. */
  readonly #files = new Map<string, Shelved>();
  #bytes = 0;
  readonly #ready: Promise<void>;
  /** Spaces whose folder was listed for strays since the node started. */
  readonly #swept = new Set<string>();
  #evicting: Promise<void> | undefined;
  #evictAgain = false;
  #closed = false;

  constructor(
    config: FileChunksConfig,
    /** The node's mirrors of a space, as file sources: where chunks come back from. */
    private readonly bucket: (space: string) => readonly FileSource[],
    private readonly now: () => number,
  ) {
    const budget = config.budget ?? Number.POSITIVE_INFINITY;
    if (typeof budget !== 'number' || !(budget >= 0))
      throw new RangeError('fileChunks.budget must be a number ≥ 0');
    this.#store = config.store;
    this.#budget = budget;
    this.#ready = this.#listAll();
    this.#ready.catch(() => undefined);
  }

  /** Bytes of chunks on the shelf (those found at start counted as full chunks until read). */
  get bytes(): number {
    return this.#bytes;
  }

  /** What is on the shelf, by one listing at start; then the budget is kept. */
  async #listAll(): Promise<void> {
    for (const key of await this.#store.list('')) {
      const [space, at, n, extra] = key.split('/');
      if (!space || !at || !n || extra !== undefined) continue;
      if (!SPACE_ID.test(space) || !VERSION_HEX.test(at) || !CHUNK_NUMBER.test(n)) continue;
      const file = this.#entry(space, at);
      if (!file.chunks.has(Number(n))) this.#add(file, Number(n), FULL_CHUNK);
    }
    this.#keepBudget();
  }

  #entry(space: string, at: string): Shelved {
    const key = `${space}/${at}`;
    let file = this.#files.get(key);
    if (file) {
      this.#files.delete(key); // used now: last in line
    } else file = { space, at, chunks: new Map(), bytes: 0 };
    this.#files.set(key, file);
    return file;
  }

  #add(file: Shelved, n: number, bytes: number): void {
    const before = file.chunks.get(n) ?? 0;
    file.chunks.set(n, bytes);
    file.bytes += bytes - before;
    this.#bytes += bytes - before;
  }

  #remove(file: Shelved, n: number): void {
    const bytes = file.chunks.get(n);
    if (bytes === undefined) return;
    file.chunks.delete(n);
    file.bytes -= bytes;
    this.#bytes -= bytes;
    if (file.chunks.size === 0) this.#files.delete(`${file.space}/${file.at}`);
  }

  /** The view of one space's chunks. */
  forSpace(space: string): SpaceChunks {
    checkedKey(space, '0'.repeat(64));
    return {
      listed: async () => {
        const out = new Map<string, Set<number>>();
        // A space closed while idle and opened again is not listed again.
        if (this.#swept.has(space)) return out;
        this.#swept.add(space);
        for (const key of await this.#store.list(`${space}/`)) {
          const [, at, n, extra] = key.split('/');
          if (!at || !n || extra !== undefined || !VERSION_HEX.test(at) || !CHUNK_NUMBER.test(n))
            continue;
          let ns = out.get(at);
          if (!ns) out.set(at, (ns = new Set()));
          ns.add(Number(n));
        }
        return out;
      },
      get: (at, n) => this.#get(space, at, n),
      put: (at, chunks) => this.#put(space, at, chunks),
      delete: (at, ns) => this.#delete(space, at, ns),
      fromBucket: (id, n) => this.#fromBucket(space, id, n),
      inBucket: (id) => {
        const file = this.#files.get(checkedKey(space, id));
        if (!file || file.inBucket === true) return;
        file.inBucket = true;
        this.#keepBudget();
      },
    };
  }

  async #get(space: string, at: string, n: number): Promise<Uint8Array | undefined> {
    const key = checkedKey(space, at, n);
    const bytes = (await this.#store.get(key)) ?? undefined;
    const file = this.#files.get(`${space}/${at}`);
    if (bytes) this.#add(this.#entry(space, at), n, bytes.length);
    else if (file) this.#remove(file, n);
    return bytes;
  }

  async #put(
    space: string,
    at: string,
    chunks: ReadonlyArray<readonly [number, Uint8Array]>,
  ): Promise<void> {
    for (const [n, bytes] of chunks) {
      await this.#store.put(checkedKey(space, at, n), bytes);
      this.#add(this.#entry(space, at), n, bytes.length);
    }
    this.#keepBudget();
  }

  async #delete(space: string, at: string, ns: Iterable<number>): Promise<void> {
    for (const n of ns) {
      const key = checkedKey(space, at, n);
      await this.#store.delete(key);
      const file = this.#files.get(`${space}/${at}`);
      if (file) this.#remove(file, n);
    }
  }

  async #fromBucket(space: string, id: string, n: number): Promise<Uint8Array | undefined> {
    checkedKey(space, id, n);
    for (const source of this.bucket(space)) {
      try {
        let bytes = await source.chunk(id, n);
        // A mirror source keeps who holds files from its last listing: asking for the list
        // looks them up again.
        if (!bytes && (await source.list(id))) bytes = await source.chunk(id, n);
        if (bytes) return bytes;
      } catch {
        // A mirror that fails is passed over: the next one, or a peer, may have it.
      }
    }
    return undefined;
  }

  /** Whether a mirror holds file `at` whole: its list is there, and hashes to the id. */
  async #inBucket(file: Shelved): Promise<boolean> {
    if (file.inBucket === true) return true;
    if (file.inBucket !== undefined && this.now() - file.inBucket < NOT_IN_BUCKET_MS) return false;
    for (const source of this.bucket(file.space)) {
      try {
        const list = await source.list(file.at);
        if (list && toHex(sha256(list)) === file.at) {
          file.inBucket = true;
          return true;
        }
      } catch {
        // Not known to be there: the file stays.
      }
    }
    file.inBucket = this.now();
    return false;
  }

  /** Starts dropping files the mirrors hold when over the budget; one pass at a time. */
  #keepBudget(): void {
    if (this.#closed || this.#bytes <= this.#budget) return;
    if (this.#evicting) {
      this.#evictAgain = true;
      return;
    }
    this.#evicting = (async () => {
      do {
        this.#evictAgain = false;
        await this.#evict();
      } while (this.#evictAgain && !this.#closed && this.#bytes > this.#budget);
    })()
      .catch(() => undefined)
      .finally(() => {
        this.#evicting = undefined;
      });
  }

  async #evict(): Promise<void> {
    const target = this.#budget * KEEP_DOWN_TO;
    for (const file of [...this.#files.values()]) {
      if (this.#closed || this.#bytes <= target) return;
      if (!(await this.#inBucket(file))) continue;
      // Read again from the bucket when asked for: the store still counts the chunks as held.
      await this.#delete(file.space, file.at, [...file.chunks.keys()]);
    }
  }

  /** Waits for a pass under way; nothing starts after. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#ready.catch(() => undefined);
    await this.#evicting;
  }
}
