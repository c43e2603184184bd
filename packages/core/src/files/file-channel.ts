/**
 * How files talk to a peer: asking for parts of a file, and being asked (the `fwant` and `fdata`
 * messages, spec 05 §16.6). The sync peer gives one {@link FileChannel} per connection; files
 * know nothing else of it.
 */

/** A request for parts of a file. */
export interface FileAsk {
  /** File id, hex. */
  id: string;
  /** Whether the chunk list is asked for too. */
  list: boolean;
  /** Chunk numbers, at most 4. */
  chunks: number[];
}

/** The answer to a {@link FileAsk}: the list when asked and held, each chunk or `null`. */
export interface FileAnswer {
  list?: Uint8Array;
  chunks: Array<Uint8Array | null>;
}

/** One connected peer, as files see it. */
export interface FileChannel {
  /** The peer's DID, once proven. */
  readonly did: string | undefined;
  /**
   * Asks the peer for parts of a file in `space`. The answer rejects `closed` when the
   * connection ends first; a caller that stops waiting calls {@link forgetFileAsk}.
   */
  askFile(space: string, ask: FileAsk): { q: number; answer: Promise<FileAnswer> };
  forgetFileAsk(q: number): void;
}

/** What a node's files do for the sync peer: told of shared spaces, and serving requests. */
export interface FileService {
  /** `channel`'s peer now shares `space`. */
  linked(channel: FileChannel, space: string): void;
  /** Answers a request from `from`'s peer. */
  serve(space: string, ask: FileAsk, from: FileChannel): Promise<FileAnswer>;
}
