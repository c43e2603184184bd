/**
 * What `addFile` takes besides bytes — a `ReadableStream`, an async (or plain) iterable of
 * byte pieces, or a `Blob`/`File` — read as plaintext chunks of exactly {@link CHUNK_BYTES}
 * (the last shorter), one at a time, so a file of any size passes with a chunk or two in hand.
 * Core sees no DOM types: the parts of those it uses are typed here.
 */
import { MincaError } from '../errors.js';
import type { AbortSignalLike } from './abort.js';
import { CHUNK_BYTES } from './chunks.js';

/** The part of a WHATWG `ReadableStream` of bytes that core reads; every runtime's fits it. */
export interface ReadableStreamLike<T = Uint8Array> {
  getReader(): {
    read(): Promise<{ done: boolean; value?: T }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/** The part of a `Blob` (or `File`) core reads: its size and type, and its bytes as a stream. */
export interface BlobLike {
  readonly size: number;
  readonly type: string;
  /** A `File`'s name. */
  readonly name?: string;
  stream(): ReadableStreamLike<Uint8Array>;
}

/** What `addFile` takes: the bytes, or a stream of them. */
export type FileInput =
  | Uint8Array
  | BlobLike
  | ReadableStreamLike<Uint8Array>
  | AsyncIterable<Uint8Array>
  | Iterable<Uint8Array>;

/** Pieces of bytes, pulled one at a time; `undefined` at the end. */
export interface PieceSource {
  next(): Promise<Uint8Array | undefined>;
  /** Lets go of the source (cancels the stream) when the add stops early. */
  cancel(): Promise<void>;
}

const isObject = (v: unknown): v is Record<string | symbol, unknown> =>
  v !== null && typeof v === 'object';

export function isBlobLike(input: unknown): input is BlobLike {
  return (
    isObject(input) &&
    typeof input.stream === 'function' &&
    typeof input.size === 'number' &&
    typeof input.type === 'string' &&
    typeof input.getReader !== 'function'
  );
}

/** The pieces of a stream-like input; a `TypeError` for anything else. */
export function pieceSource(input: unknown): PieceSource {
  if (isBlobLike(input)) return fromReadable(input.stream());
  if (isObject(input) && typeof input.getReader === 'function')
    return fromReadable(input as unknown as ReadableStreamLike<Uint8Array>);
  if (isObject(input) && typeof input[Symbol.asyncIterator] === 'function')
    return fromIterator((input as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]());
  if (isObject(input) && typeof input[Symbol.iterator] === 'function' && !ArrayBuffer.isView(input))
    return fromIterator((input as unknown as Iterable<Uint8Array>)[Symbol.iterator]());
  throw new TypeError(
    'addFile takes a Uint8Array, a Blob, a ReadableStream or an (async) iterable of Uint8Array',
  );
}

function fromReadable(stream: ReadableStreamLike<Uint8Array>): PieceSource {
  const reader = stream.getReader();
  let ended = false;
  return {
    async next() {
      if (ended) return undefined;
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        reader.releaseLock();
        return undefined;
      }
      return value;
    },
    async cancel() {
      if (ended) return;
      ended = true;
      await reader.cancel().catch(() => undefined);
    },
  };
}

function fromIterator(it: AsyncIterator<Uint8Array> | Iterator<Uint8Array>): PieceSource {
  let ended = false;
  return {
    async next() {
      if (ended) return undefined;
      const r = await it.next();
      if (r.done) {
        ended = true;
        return undefined;
      }
      return r.value;
    },
    async cancel() {
      if (ended) return;
      ended = true;
      await Promise.resolve(it.return?.()).catch(() => undefined);
    },
  };
}

/** `work`, or `aborted` as soon as `signal` fires, whichever comes first. */
function raced<T>(work: Promise<T>, signal: AbortSignalLike | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new MincaError('aborted', 'the file operation was aborted'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort);
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Cuts a source's pieces into plaintext chunks of exactly {@link CHUNK_BYTES}, the last one
 * shorter (or none for an empty source). Each chunk is a fresh copy: a source may reuse its
 * buffers once it has handed them over.
 */
export class ChunkReader {
  #piece: Uint8Array | undefined;
  #at = 0;
  #ended = false;

  constructor(
    private readonly source: PieceSource,
    private readonly signal: AbortSignalLike | undefined,
  ) {}

  /** The next chunk, or `undefined` once the source has ended. */
  async next(): Promise<Uint8Array | undefined> {
    if (this.#ended) return undefined;
    let chunk: Uint8Array | undefined;
    let filled = 0;
    while (filled < CHUNK_BYTES) {
      if (!this.#piece || this.#at >= this.#piece.length) {
        const piece = await raced(this.source.next(), this.signal);
        if (piece === undefined) {
          this.#ended = true;
          break;
        }
        if (!(piece instanceof Uint8Array))
          throw new TypeError('a stream given to addFile must give Uint8Array pieces');
        this.#piece = piece;
        this.#at = 0;
        continue;
      }
      chunk ??= new Uint8Array(CHUNK_BYTES);
      const take = Math.min(CHUNK_BYTES - filled, this.#piece.length - this.#at);
      chunk.set(this.#piece.subarray(this.#at, this.#at + take), filled);
      this.#at += take;
      filled += take;
    }
    if (!chunk) return undefined;
    return filled === CHUNK_BYTES ? chunk : chunk.slice(0, filled);
  }

  cancel(): Promise<void> {
    this.#ended = true;
    this.#piece = undefined;
    return this.source.cancel();
  }
}
