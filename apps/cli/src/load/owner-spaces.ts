/**
 * The owner's part of a load run on one host: a subscription for its spaces, the spaces made
 * for the host to hold, and bringing them to it before the clients come.
 */
import type { MincaNode } from '@minca/core';
import { connect, run, until } from './host-process.js';

/** Gives `owner` a subscription for `spaces` spaces on the host whose data is `data`. */
export async function subscribeOwner(owner: MincaNode, root: string, data: string, spaces: number) {
  const args = ['host', 'subscription', 'add', owner.did, '--spaces', String(spaces)];
  await run([...args, '--bytes', '100GiB', '--data', data], { ...process.env, HOME: root });
}

/** Makes `count` spaces that the host `hostDid` may hold. */
export async function makeSpaces(owner: MincaNode, hostDid: string, count: number) {
  const spaces: string[] = [];
  for (let s = 0; s < count; s++) {
    const { id } = await owner.spaces.create();
    await owner.spaces.allowHolder(id, hostDid, 'host');
    spaces.push(id);
  }
  return spaces;
}

/** Connects the owner to the host at `url` until it holds every space, then leaves. */
export async function bringToHost(owner: MincaNode, spaces: readonly string[], url: string) {
  const socket = connect(owner, url);
  try {
    await until(
      async () => {
        for (const id of spaces) if (!(await owner.spaces.status(id)).peers[0]?.level) return false;
        return true;
      },
      120_000,
      'the host to hold every space',
    );
  } finally {
    socket.close();
  }
}
