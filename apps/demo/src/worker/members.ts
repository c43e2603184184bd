/**
 * Who the owner removed from a space: accounts with a `sys.member` record `{ role: "none" }`
 * written by one of the owner's writers (spec 05 §7). A removed person's profile and their
 * posts from before stay in the space; the app leaves them out of People and of the invite
 * alert, since they are no longer in it.
 */
import type { MincaNode } from '@minca/core';
import { accountOf, writerAccounts } from '@minca/std';

const MEMBERS = 'sys.member';

export async function removedAccounts(node: MincaNode, space: string): Promise<Set<string>> {
  const [{ owner }, records, writers] = await Promise.all([
    node.spaces.open(space),
    node.records.list(space, MEMBERS),
    writerAccounts(node, space),
  ]);
  const removed = new Set<string>();
  for (const record of records) {
    // Only the owner's grants count; a record another member wrote is not a removal.
    if (accountOf(writers, record.author) !== owner) continue;
    const body = record.body as { role?: unknown } | null;
    if (body?.role === 'none') removed.add(`did:key:${record.id}`);
  }
  return removed;
}
