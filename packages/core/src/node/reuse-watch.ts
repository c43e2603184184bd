/**
 * Telling the owner of an invite used by more than one account (a forwarded link, spec 05
 * §7.2): each acceptance keeps its role, and listeners hear of each new use of such an invite.
 */
import type { InviteReuse } from '../space/membership.js';
import type { OpenSpace } from '../space/open-space.js';

/** An invite of `space` accepted by more than one account. */
export interface ReusedInvite extends InviteReuse {
  space: string;
}

export class ReuseWatch {
  readonly #listeners = new Set<(event: ReusedInvite) => void>();
  /** Per space and invite, how many accounts were told of. */
  readonly #told = new Map<string, number>();

  constructor(private readonly account: string) {}

  subscribe(listener: (event: ReusedInvite) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The space's `sys.*` changed: tells of each invite with more acceptances than told. */
  async changed(space: OpenSpace): Promise<void> {
    if (space.owner !== this.account || this.#listeners.size === 0) return;
    for (const reuse of (await space.membership()).reusedInvites()) {
      const key = `${space.id}/${reuse.invite}`;
      if ((this.#told.get(key) ?? 1) >= reuse.accounts.length) continue;
      this.#told.set(key, reuse.accounts.length);
      const event = { space: space.id, ...reuse };
      for (const listener of this.#listeners) void Promise.resolve(event).then(listener);
    }
  }
}
