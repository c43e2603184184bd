/**
 * The file side of a connection (spec 05 §16.6): this node's `fwant`s and the peer's `fdata`
 * answers, and the peer's `fwant`s answered in order on a queue of their own, so a request that
 * waits for a file this node is fetching doesn't hold up sync.
 */
import { fromHex, toHex } from '../bytes.js';
import { isMincaError, MincaError } from '../errors.js';
import type { FileAnswer, FileAsk, FileChannel, FileService } from '../files/file-channel.js';
import type { Message } from './messages.js';

/** File requests from one peer waiting to be answered; past this the connection ends. */
const MAX_FILE_REQUESTS_QUEUED = 16;

/** What the file channel needs of its connection. */
export interface FileConnection {
  readonly did: string | undefined;
  readonly closed: boolean;
  /** Whether the connection shares `space` now. */
  shares(space: string): boolean;
  send(message: Message): void;
  /** Resolves once the connection has room to send more (spec 05 §10.1): false once it ended. */
  room(): Promise<boolean>;
  close(reason: string): void;
}

export class PeerFileChannel implements FileChannel {
  /** File requests sent and not answered yet, by number. */
  readonly #asks = new Map<
    number,
    { resolve: (a: FileAnswer) => void; reject: (e: unknown) => void }
  >();
  #nextAsk = 0;
  #serving: Promise<void> = Promise.resolve();
  #serves = 0;

  constructor(
    private readonly connection: FileConnection,
    private readonly service: FileService | undefined,
  ) {}

  get did(): string | undefined {
    return this.connection.did;
  }

  askFile(space: string, ask: FileAsk): { q: number; answer: Promise<FileAnswer> } {
    const q = this.#nextAsk++;
    const answer = new Promise<FileAnswer>((resolve, reject) => {
      if (this.connection.closed || !this.connection.shares(space)) {
        reject(new MincaError('closed', 'the peer does not share this space now'));
        return;
      }
      this.#asks.set(q, { resolve, reject });
      this.connection.send({
        t: 'fwant',
        s: space,
        q,
        i: fromHex(ask.id),
        l: ask.list,
        n: ask.chunks,
      });
    });
    return { q, answer };
  }

  forgetFileAsk(q: number): void {
    this.#asks.delete(q);
  }

  /** The peer's answer; one that comes after its asker gave up on it is dropped. */
  onData(m: Extract<Message, { t: 'fdata' }>): void {
    const ask = this.#asks.get(m.q);
    this.#asks.delete(m.q);
    ask?.resolve({ ...(m.l ? { list: m.l } : {}), chunks: m.c });
  }

  /** Queues the peer's request. A peer may have a few queued, no more. */
  onWant(m: Extract<Message, { t: 'fwant' }>): void {
    if (this.#serves >= MAX_FILE_REQUESTS_QUEUED)
      throw new MincaError(
        'protocol',
        `more than ${MAX_FILE_REQUESTS_QUEUED} file requests at once`,
      );
    this.#serves++;
    const ask = { id: toHex(m.i), list: m.l, chunks: m.n };
    this.#serving = this.#serving
      .then(async () => {
        // Chunks are read only once there is room to send them: a peer that asks and reads
        // nothing gets its 16 requests queued, no more.
        if (!(await this.connection.room())) return;
        const answer = (await this.service?.serve(m.s, ask, this)) ?? {
          chunks: m.n.map(() => null),
        };
        this.connection.send({
          t: 'fdata',
          s: m.s,
          q: m.q,
          ...(answer.list ? { l: answer.list } : {}),
          c: answer.chunks,
        });
      })
      .catch((error) => this.connection.close(isMincaError(error) ? error.message : String(error)))
      .finally(() => {
        this.#serves--;
      });
  }

  /** The connection ended: every request still waiting rejects `closed`. */
  ended(reason: string): void {
    for (const ask of this.#asks.values())
      ask.reject(new MincaError('closed', `the connection ended: ${reason}`));
    this.#asks.clear();
  }
}
