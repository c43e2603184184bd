/**
 * How many posts written here the host may not have yet, per space, for "3 posts waiting to
 * send". The node can say it is level with the host (the same fingerprint) but not how far
 * apart they are, so the worker counts: posts written, and how many had been written when it
 * last saw the space level with the host. Level is judged against the store as it is now, so
 * a count taken before the look is never ahead of it. Kept in IndexedDB `minca-demo-outbox`,
 * so a reload while offline still counts what waits.
 */
import { openDB } from 'idb';

interface Counts {
  written: number;
  level: number;
}

const db = () =>
  openDB('minca-demo-outbox', 1, { upgrade: (d) => void d.createObjectStore('counts') });

export class Outbox {
  readonly #counts = new Map<string, Counts>();
  constructor(private readonly account: string) {}

  #key = (space: string) => `${this.account}:${space}`;

  async #get(space: string): Promise<Counts> {
    let counts = this.#counts.get(space);
    if (!counts) {
      const d = await db();
      try {
        counts = ((await d.get('counts', this.#key(space))) as Counts | undefined) ?? {
          written: 0,
          level: 0,
        };
      } finally {
        d.close();
      }
      this.#counts.set(space, counts);
    }
    return counts;
  }

  async #save(space: string, counts: Counts): Promise<void> {
    const d = await db();
    try {
      await d.put('counts', counts, this.#key(space));
    } finally {
      d.close();
    }
  }

  /** A post was written here (call once it is in the store). */
  async wrote(space: string): Promise<void> {
    const counts = await this.#get(space);
    counts.written++;
    await this.#save(space, counts);
  }

  /** How many were written when `look` ran: take it before looking, give it to {@link level}. */
  async written(space: string): Promise<number> {
    return (await this.#get(space)).written;
  }

  /** The host was level with this space when `written` posts had been written. */
  async level(space: string, written: number): Promise<void> {
    const counts = await this.#get(space);
    if (counts.level >= written) return;
    counts.level = written;
    await this.#save(space, counts);
  }

  /** Drops the counts of every space of `account`. */
  static async forget(account: string): Promise<void> {
    const d = await db();
    try {
      const range = IDBKeyRange.bound(`${account}:`, `${account}:\uffff`);
      await d.delete('counts', range);
    } finally {
      d.close();
    }
  }

  async waiting(space: string): Promise<number> {
    const counts = await this.#get(space);
    return Math.max(0, counts.written - counts.level);
  }
}
