/**
 * Where a file's list and chunks come from when they are not here: connected peers, then
 * whatever else the node was given (mirrors). A source only carries bytes; the fetcher checks
 * every one of them against the file id, so a source needs no trust and no key.
 */
import { MincaError } from '../errors.js';
import { clearTimer, setTimer } from '../timers.js';
import type { AbortSignalLike } from './abort.js';
import type { FileAnswer, FileChannel } from './file-channel.js';

/** One place to fetch a space's files from. */
export interface FileSource {
  /** For messages: which source this is. */
  readonly name: string;
  /**
   * `peer`: a connected peer. Peers are asked together, in parallel, before any other source;
   * every other source (a mirror, `mirror`) is asked on its own, after them, in order.
   */
  readonly kind?: 'peer' | 'mirror';
  /** The file's chunk list as stored, or `null` when this source doesn't have it. */
  list(id: string, signal?: AbortSignalLike): Promise<Uint8Array | null>;
  /** Sealed chunk `n`, or `null` when this source doesn't have it. */
  chunk(id: string, n: number, signal?: AbortSignalLike): Promise<Uint8Array | null>;
  /** Several chunks at once (at most 4), each or `null`; without it `chunk` is asked per chunk. */
  chunks?(
    id: string,
    ns: readonly number[],
    signal?: AbortSignalLike,
  ): Promise<Array<Uint8Array | null>>;
}

/** Gives the extra sources of a space, asked after its peers, one after another, in this order. */
export type FileSourceProvider = (spaceId: string) => readonly FileSource[];

/** A peer that doesn't answer a file request in this long is moved past. */
export const FILE_REQUEST_TIMEOUT_MS = 15_000;

/** A connected peer as a source of one space's files. */
export class PeerFileSource implements FileSource {
  readonly kind = 'peer' as const;

  constructor(
    readonly peer: FileChannel,
    readonly space: string,
  ) {}

  get name(): string {
    return `peer ${this.peer.did ?? '?'}`;
  }

  async list(id: string, signal?: AbortSignalLike): Promise<Uint8Array | null> {
    const answer = await this.#ask(id, true, [], signal);
    return answer.list ?? null;
  }

  async chunk(id: string, n: number, signal?: AbortSignalLike): Promise<Uint8Array | null> {
    return (await this.chunks(id, [n], signal))[0] ?? null;
  }

  async chunks(
    id: string,
    ns: readonly number[],
    signal?: AbortSignalLike,
  ): Promise<Array<Uint8Array | null>> {
    const answer = await this.#ask(id, false, [...ns], signal);
    if (answer.chunks.length !== ns.length)
      throw new MincaError(
        'protocol',
        `${this.name} sent ${answer.chunks.length} chunks for ${ns.length}`,
      );
    return answer.chunks;
  }

  /** One request, given up after {@link FILE_REQUEST_TIMEOUT_MS} or when `signal` aborts. */
  #ask(id: string, list: boolean, chunks: number[], signal?: AbortSignalLike): Promise<FileAnswer> {
    const { q, answer } = this.peer.askFile(this.space, { id, list, chunks });
    return new Promise<FileAnswer>((resolve, reject) => {
      const done = () => {
        clearTimer(timer);
        signal?.removeEventListener('abort', onAbort);
        this.peer.forgetFileAsk(q);
      };
      const timer = setTimer(() => {
        done();
        reject(new MincaError('unavailable', `${this.name} did not answer in time`));
      }, FILE_REQUEST_TIMEOUT_MS);
      const onAbort = () => {
        done();
        reject(new MincaError('aborted', 'the read was aborted'));
      };
      signal?.addEventListener('abort', onAbort);
      answer.then(
        (a) => {
          done();
          resolve(a);
        },
        (e) => {
          done();
          reject(e);
        },
      );
    });
  }
}
