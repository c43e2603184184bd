/**
 * The account's name and avatar, carried into each space as the person's `std.profile`
 * (spec 05 §17.2): written when they make or join a space, when a space opens without it, and
 * in every space when they change it.
 */
import type { MincaNode } from '@minca/core';
import { addImage, listProfiles, putProfile, type StdProfile } from '@minca/std';
import type { Account } from '../accounts.js';

/**
 * Writes `account`'s profile in `space` unless it is there as it should be. `changed`: the
 * avatar is new, so it is added again even where one is there.
 */
export async function writeOwnProfile(
  node: MincaNode,
  space: string,
  account: Account,
  changed = false,
): Promise<void> {
  const mine = (await listProfiles(node, space)).get(node.did);
  const same = mine?.name === account.name && Boolean(mine?.avatar) === Boolean(account.avatar);
  if (same && !changed) return;
  const profile: StdProfile = { name: account.name };
  if (account.avatar) {
    profile.avatar =
      mine?.avatar && !changed
        ? mine.avatar
        : await addImage(node, space, account.avatar, 'avatar.jpg');
  }
  await putProfile(node, space, profile);
}
