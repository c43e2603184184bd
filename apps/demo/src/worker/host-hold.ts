/**
 * The local host is the CLI's `minca host`: it holds a space without its key (spec 05 §7.3).
 * Its owner lets the host's DID hold it (`spaces.allowHolder`); the host keeps it under the
 * owner's subscription, which the demo's server adds for every account of this browser
 * (`POST /subscribe`, the account's DID as the body) before the account first connects.
 */
import { MincaError, type MincaNode } from '@minca/core';
import type { HostConfig } from '../protocol.js';

const HOLDER_COLLECTION = 'sys.holder';
const subscribed = new Map<string, Promise<void>>();

/** Asks the demo's server to let `did` keep spaces on the local host (once per worker). */
export function subscribe(host: HostConfig, did: string): Promise<void> {
  let done = subscribed.get(did);
  if (!done) {
    done = fetch(host.subscribe, { method: 'POST', body: did }).then(async (answer) => {
      if (!answer.ok) {
        subscribed.delete(did);
        throw new MincaError('unavailable', `the host refused: ${await answer.text()}`);
      }
    });
    subscribed.set(did, done);
  }
  return done;
}

/** Lets the host hold `space` (owner only), unless it may already. */
export async function letHostHold(node: MincaNode, host: HostConfig, space: string) {
  const { owner } = await node.spaces.open(space);
  if (owner !== node.did) return;
  const id = host.did.slice('did:key:'.length);
  const now = await node.records.get(space, HOLDER_COLLECTION, id).catch(() => undefined);
  if (now) return;
  await node.spaces.allowHolder(space, host.did, 'host');
}
