/**
 * The sharing index: which spaces a DID may sync, and what a meeting needs of each space this
 * node has the key of (what this account shows there, who holds it), kept in the registry so a
 * handshake reads the spaces shared with one peer, and names and proves them, instead of
 * opening every space held (a host holds thousands; a device with thousands of spaces opened
 * each at every meeting). A space whose `sys.*` records change is marked at once and indexed
 * again before the next lookup. Spec 05 §5.3.
 */
import type { MeetingFacts, Registry } from './registry.js';

export class SharingIndex {
  #ready: Promise<void> | undefined;
  readonly #dirty = new Set<string>();
  #flushing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly registry: Registry,
    /** The DIDs space `id` is shared with now: its members and holders, read from the space. */
    private readonly sharersNow: (id: string) => Promise<string[]>,
    /** This account's DID, and what a meeting needs of space `id` now, read from the space. */
    private readonly meetings: { account: string; now: (id: string) => Promise<MeetingFacts> },
  ) {}

  /** Resolves once the updates asked for so far are written. */
  async idle(): Promise<void> {
    await this.#flushing;
  }

  /** Space `id`'s sharers may have changed: they are read again soon, and before any lookup. */
  dirty(id: string): void {
    this.#dirty.add(id);
    void this.#flushNow().catch(() => undefined);
  }

  /** Indexes space `id` now (a space just created or joined). */
  async update(id: string): Promise<void> {
    this.#dirty.add(id);
    await this.#flushNow();
  }

  /** The spaces shared with `did`. */
  async spacesFor(did: string): Promise<string[]> {
    await this.#indexAll();
    await this.#flushNow();
    return this.registry.sharedWith(did);
  }

  /**
   * What a meeting needs of each of spaces `ids` (spaces this node has the key of), as indexed
   * once the updates asked for are written: a space is opened only when it has no entry (a
   * registry from before them, or one damaged).
   */
  async meetingIn(ids: readonly string[]): Promise<MeetingFacts[]> {
    await this.#flushNow();
    const { account, now } = this.meetings;
    const out: MeetingFacts[] = [];
    for (const id of ids) {
      let facts = await this.registry.meeting(id, account);
      if (!facts) {
        facts = await now(id);
        await this.registry.putMeeting(id, account, facts);
      }
      out.push(facts);
    }
    return out;
  }

  /** One flush at a time, so no lookup reads the index while another is still updating it. */
  #flushNow(): Promise<void> {
    const flush = this.#flushing.then(() => this.#flush());
    this.#flushing = flush.catch(() => undefined);
    return flush;
  }

  async #flush(): Promise<void> {
    for (const id of [...this.#dirty]) {
      this.#dirty.delete(id);
      try {
        await this.#update(id);
      } catch (error) {
        this.#dirty.add(id);
        throw error;
      }
    }
  }

  async #update(id: string): Promise<void> {
    await this.registry.putMeeting(id, this.meetings.account, await this.meetings.now(id));
    const known = await this.registry.sharers(id);
    const after = await this.sharersNow(id);
    if (known && known.length === after.length) {
      const set = new Set(known);
      if (after.every((d) => set.has(d))) return;
    }
    await this.registry.setSharers(id, known ?? [], after);
  }

  /** Once per registry: index the spaces it held before it had an index. */
  #indexAll(): Promise<void> {
    this.#ready ??= (async () => {
      if (await this.registry.sharingIndexed()) return;
      for (const id of await this.registry.spaceIds())
        if ((await this.registry.sharers(id)) === undefined) await this.#update(id);
      await this.registry.markSharingIndexed();
    })();
    this.#ready.catch(() => {
      this.#ready = undefined;
    });
    return this.#ready;
  }
}
