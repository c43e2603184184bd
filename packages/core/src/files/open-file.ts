/**
 * A file opened for reading by range (`records.openFile`, spec 05 §16.6.8): its size and type,
 * and its bytes — all or a range — as a `ReadableStream`, an async iterator of pieces, or one
 * `Uint8Array`. Only the chunks covering a range are read, fetched in order of need when not
 * here. While it is open the file is never dropped for the limits, so a player asking range
 * after range doesn't see it dropped and fetched again between two.
 */
import { MincaError } from '../errors.js';
import type { FileRef } from '../file-ref.js';
import type { ReadableStreamLike } from './file-input.js';
import { type RangeReadContext, RangeReader, type RangeReadOptions } from './range-reader.js';

/**
 * Bytes `[offset, offset + length)` of a file. `offset` is 0 by default; `length` runs to the
 * end by default, and a range past the end stops at the end (as `Blob.slice` does).
 */
export interface ByteRange {
  offset?: number;
  length?: number;
}

/** A `ReadableStream` constructor, as far as core uses one. */
type StreamConstructor = new (
  source: {
    pull(controller: { enqueue(chunk: Uint8Array): void; close(): void }): Promise<void>;
    cancel(): Promise<void>;
  },
  strategy: { highWaterMark: number },
) => ReadableStreamLike<Uint8Array>;

/** What an open file needs beyond a range read: letting go of the file when it is closed. */
export interface OpenFileContext extends RangeReadContext {
  /** The handle is closed: the file is unpinned, and may be dropped as any read file may. */
  closed(id: string): Promise<void>;
}

export class OpenFile {
  /** The file id. */
  readonly id: string;
  /** Plaintext bytes. */
  readonly size: number;
  readonly mime: string | undefined;
  readonly name: string | undefined;
  #open = true;

  constructor(
    private readonly context: OpenFileContext,
    private readonly ref: FileRef,
  ) {
    this.id = ref.$file;
    this.size = ref.size;
    this.mime = ref.mime;
    this.name = ref.name;
    context.activity.pin(this.id);
  }

  /**
   * The bytes of `range` (the whole file by default) as they come, one piece per chunk (at most
   * 256 KiB), in order. Breaking out of the loop (`return`) stops the fetch.
   */
  chunks(range?: ByteRange, options?: RangeReadOptions): AsyncIterableIterator<Uint8Array> {
    this.#check();
    const { offset, end } = this.#bounds(range);
    return new RangeReader(this.context, this.ref, offset, end, options);
  }

  /**
   * The bytes of `range` as a WHATWG `ReadableStream` of `Uint8Array` (the runtime's own; cast it
   * to `ReadableStream<Uint8Array>` where DOM types want one, e.g. `new Response(stream)`).
   * It is pulled: nothing is read ahead beyond a window of chunks. Cancelling it stops the fetch.
   * Rejects `unavailable` on a runtime without `ReadableStream` (use {@link chunks}).
   */
  stream(range?: ByteRange, options?: RangeReadOptions): ReadableStreamLike<Uint8Array> {
    const Stream = (globalThis as { ReadableStream?: StreamConstructor }).ReadableStream;
    if (!Stream)
      throw new MincaError('unavailable', 'this runtime has no ReadableStream: use chunks()');
    const pieces = this.chunks(range, options);
    return new Stream(
      {
        async pull(controller) {
          const next = await pieces.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        async cancel() {
          await pieces.return?.();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The bytes of `range` (the whole file by default) in one `Uint8Array`. */
  async read(range?: ByteRange, options?: RangeReadOptions): Promise<Uint8Array> {
    this.#check();
    const { offset, end } = this.#bounds(range);
    const out = new Uint8Array(end - offset);
    let at = 0;
    for await (const piece of new RangeReader(this.context, this.ref, offset, end, options)) {
      out.set(piece, at);
      at += piece.length;
    }
    return out;
  }

  /** Lets go of the file: reads under way go on; new ones reject `closed`. */
  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    this.context.activity.unpin(this.id);
    await this.context.closed(this.id);
  }

  #check(): void {
    this.context.check();
    if (!this.#open) throw new MincaError('closed', `file ${this.id} was closed`);
  }

  #bounds(range: ByteRange | undefined): { offset: number; end: number } {
    if (range !== undefined && (range === null || typeof range !== 'object'))
      throw new MincaError('invalid_input', 'a byte range is { offset?, length? }');
    const offset = range?.offset ?? 0;
    const length = range?.length ?? this.size - offset;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.size)
      throw new MincaError(
        'invalid_input',
        `a range's offset is a whole number from 0 to ${this.size}`,
      );
    if (!Number.isSafeInteger(length) || length < 0)
      throw new MincaError('invalid_input', "a range's length is a whole number from 0");
    return { offset, end: Math.min(this.size, offset + length) };
  }
}
