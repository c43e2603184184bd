/**
 * Puts made while an earlier write of the space is still under way, joined: they wait for that
 * write together and are then written as one — sealed together, their signatures made at once
 * (on every core, where the platform has them), stored in one commit. A put alone waits for
 * nothing it would not have waited for anyway; puts made many at once (an import, a burst of
 * edits) cost about what one `putMany` of them does.
 */
import type { MincaRecord } from './record-reads.js';
import { freshInOrder, type RecordWrite } from './record-writer.js';

/** Puts joined into one write at most: a bound on one commit's size and on the last's wait. */
export const MAX_JOINED_PUTS = 1024;

/** A put waiting for its turn, and how to answer it. */
export interface JoinedPut {
  collection: string;
  write: RecordWrite;
  resolve(record: MincaRecord): void;
  reject(error: unknown): void;
}

/**
 * The space's puts waiting for a turn in its chain of writes. A put joins the batch still waiting,
 * if there is one and it has room; otherwise it starts one, queued behind the writes before it.
 */
export class PutJoiner {
  #waiting: Array<JoinedPut> | undefined;

  constructor(
    /** Queues a run after the space's writes so far. */
    private readonly queue: (run: () => Promise<void>) => void,
    /** Writes a batch of puts and answers each. */
    private readonly writeAll: (puts: ReadonlyArray<JoinedPut>) => Promise<void>,
  ) {}

  add(put: JoinedPut): void {
    const waiting = this.#waiting;
    if (waiting && waiting.length < MAX_JOINED_PUTS) {
      waiting.push(put);
      return;
    }
    const batch = [put];
    this.#waiting = batch;
    this.queue(async () => {
      // Its turn came: puts made from now on wait for the next.
      if (this.#waiting === batch) this.#waiting = undefined;
      await this.writeAll(batch);
    });
  }

  /**
   * Lets no later put join the batch waiting: a write queued now (a delete, say) comes after
   * the puts made before it and before those made after it.
   */
  close(): void {
    this.#waiting = undefined;
  }
}

/**
 * Puts by collection, each collection's in the order they were made, with their writes: new
 * records' ids drawn at `now`, in that order (record-writer.ts, freshInOrder).
 */
export function joinedByCollection(
  puts: ReadonlyArray<JoinedPut>,
  now: number,
): Array<{ collection: string; puts: JoinedPut[]; writes: RecordWrite[] }> {
  const out = new Map<string, JoinedPut[]>();
  for (const put of puts) {
    const group = out.get(put.collection);
    if (group) group.push(put);
    else out.set(put.collection, [put]);
  }
  return [...out].map(([collection, group]) => ({
    collection,
    puts: group,
    writes: freshInOrder(
      group.map((p) => p.write),
      now,
    ),
  }));
}
