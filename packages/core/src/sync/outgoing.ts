/**
 * What a peer is sent: versions' bytes, each with its collection, read from the store without
 * decoding them. Answering a pull, a want or a push costs the side that answers a read and the
 * store's hash check per version: the peer decodes and checks every version anyway.
 */
import type { Store } from '../store.js';
import { MAX_VERSION_BYTES } from '../version-format.js';
import { MAX_VERSIONS_PER_MESSAGE, type Message, VERS_MESSAGE_BYTES } from './messages.js';

/** A version on its way to a peer: all a `vers` message and its key records ahead need. */
export interface Outgoing {
  id: string;
  collection: string;
  bytes: Uint8Array;
}

/**
 * The versions of `ids` the store holds, in order, with the collection each is of: `collection`
 * when they are all of one (a pull's page, or a push, read from its sync set), else the one
 * holding it. Read through the body cache only if `keep`: by default, when the cache holds as
 * many.
 */
export async function outgoing(
  store: Store,
  ids: readonly string[],
  collection?: string,
  keep = store.fitsBodyCache(ids.length),
): Promise<Outgoing[]> {
  const bytes = await store.getVersionBytes(ids, { keep });
  const names = collection === undefined ? store.collectionNames() : [];
  const out: Outgoing[] = [];
  ids.forEach((id, i) => {
    const b = bytes[i];
    if (b === undefined) return;
    const of = collection ?? names.find((name) => store.hasVersion(name, id));
    if (of !== undefined) out.push({ id, collection: of, bytes: b });
  });
  return out;
}

/**
 * Versions read from the store at once to send a peer: as many as fit in 4 MiB were each as
 * large as a version may be (15). What a peer asks for in one small message (a `want` of 256
 * ids, a pull) or is pushed is read a part at a time, each sent before the next is read, so
 * what it makes a node hold is bounded however large the versions it names.
 */
export const READ_PART = Math.max(1, Math.floor((4 * 1024 * 1024) / MAX_VERSION_BYTES));

type Vers = Extract<Message, { t: 'vers' }>;

/**
 * Versions of space `space` packed into `vers` messages of up to {@link VERS_MESSAGE_BYTES} and
 * {@link MAX_VERSIONS_PER_MESSAGE} versions as they are added, each message handed to `send`
 * once full; {@link end} sends the rest, the last message answering want or pull `q`, if given,
 * so an answer is always one message at least.
 */
export class VersPacker {
  #batch: Uint8Array[] = [];
  #size = 0;

  constructor(
    private readonly space: string,
    private readonly send: (message: Vers) => void,
  ) {}

  add(versions: readonly Outgoing[]): void {
    for (const v of versions) {
      const full = this.#size + v.bytes.length + 8 > VERS_MESSAGE_BYTES;
      if (full || this.#batch.length >= MAX_VERSIONS_PER_MESSAGE) this.#flush();
      this.#batch.push(v.bytes);
      this.#size += v.bytes.length + 8;
    }
  }

  end(q?: number): void {
    this.#flush(q);
  }

  #flush(q?: number): void {
    if (this.#batch.length === 0 && q === undefined) return;
    this.send({ t: 'vers', s: this.space, ...(q === undefined ? {} : { q }), v: this.#batch });
    this.#batch = [];
    this.#size = 0;
  }
}
