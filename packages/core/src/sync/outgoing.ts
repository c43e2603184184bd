/**
 * What a peer is sent: versions' bytes, each with its collection, read from the store without
 * decoding them. Answering a pull, a want or a push costs the side that answers a read and the
 * store's hash check per version: the peer decodes and checks every version anyway.
 */
import type { Store } from '../store.js';
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
 * `versions` of space `space` packed into `vers` messages of up to {@link VERS_MESSAGE_BYTES}
 * and {@link MAX_VERSIONS_PER_MESSAGE} versions; the last answers want `q`, if given, so an
 * answer to a want is always one message at least.
 */
export function versMessages(
  space: string,
  versions: readonly Outgoing[],
  q?: number,
): Array<Extract<Message, { t: 'vers' }>> {
  const out: Array<Extract<Message, { t: 'vers' }>> = [];
  let batch: Uint8Array[] = [];
  let size = 0;
  const flush = (last: boolean) => {
    if (batch.length === 0 && !(last && q !== undefined)) return;
    out.push({ t: 'vers', s: space, ...(last && q !== undefined ? { q } : {}), v: batch });
    batch = [];
    size = 0;
  };
  for (const v of versions) {
    if (size + v.bytes.length + 8 > VERS_MESSAGE_BYTES || batch.length >= MAX_VERSIONS_PER_MESSAGE)
      flush(false);
    batch.push(v.bytes);
    size += v.bytes.length + 8;
  }
  flush(true);
  return out;
}
