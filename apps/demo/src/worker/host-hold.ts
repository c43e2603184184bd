/**
 * Until hosts hold spaces without their key (issue #3), the demo's host holds a space as a
 * reader. Its owner grants the host's DID the reader role (`sys.member`), then hands the host
 * an invite over HTTP, once. The grant also travels in invite links (a {@link SpaceTicket} of
 * the host's grant, see host-ticket.ts), so a joiner knows the host is a member and syncs
 * through it before it ever met the owner.
 */
import { MincaError, type MincaNode } from '@minca/core';
import type { HostConfig } from '../protocol.js';

const held = new Set<string>();
let hostDid: Promise<string> | undefined;

/** The host's DID, as it says at `GET /hold`. */
export function hostDidOf(host: HostConfig): Promise<string> {
  hostDid ??= fetch(host.hold).then(async (answer) => {
    const did = (await answer.text()).trim();
    if (!answer.ok || !did.startsWith('did:key:')) {
      hostDid = undefined;
      throw new MincaError('unavailable', 'the host did not say who it is');
    }
    return did;
  });
  return hostDid;
}

export async function askHostToHold(node: MincaNode, host: HostConfig, space: string) {
  if (held.has(space)) return;
  const did = await hostDidOf(host);
  const known = await fetch(`${host.hold}/${space}`);
  if (known.ok && ((await known.json()) as { held?: unknown }).held === true) {
    held.add(space);
    return;
  }
  const code = await node.spaces.invite(space, { role: 'reader' });
  const answer = await fetch(host.hold, { method: 'POST', body: code });
  if (!answer.ok) throw new MincaError('unavailable', `the host refused: ${await answer.text()}`);
  // The grant comes after the host joined: a peer that named a space to the host before the
  // host held it is not asked again (core's sync offers each space once per connection).
  await node.spaces.setRole(space, did, 'reader');
  held.add(space);
}
