import { expect } from 'vitest';
import { createNode, type MincaNode } from '../src/node.js';
import {
  createMemoryTransportPair,
  type MemoryTransportOptions,
} from '../src/sync/memory-transport.js';
import { fakeStores } from './fake-adapter.js';

/** Polls `check` until true, within `ms`; fails the test otherwise. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  expect.fail(`timed out waiting for ${what}`);
}

export const newNode = () => createNode({ stores: fakeStores() });

/** A space owned by `owner`, joined by each of `others` with the given role. */
export async function sharedSpace(
  owner: MincaNode,
  others: MincaNode[],
  role: 'writer' | 'reader' = 'writer',
) {
  const space = await owner.spaces.create();
  for (const other of others) {
    await owner.spaces.setRole(space.id, other.did, role);
    await other.spaces.join(await owner.spaces.share(space.id, other.did));
  }
  return space.id;
}

export function connect(a: MincaNode, b: MincaNode, options?: MemoryTransportOptions) {
  const [ta, tb] = createMemoryTransportPair(options);
  return [a.connect(ta), b.connect(tb)] as const;
}

export const fingerprint = async (node: MincaNode, space: string) =>
  (await node.spaces.status(space)).fingerprint;

/** Waits until every node holds the same versions of `space`. */
export async function converged(nodes: MincaNode[], space: string, ms = 20_000): Promise<void> {
  await until(
    async () => new Set(await Promise.all(nodes.map((n) => fingerprint(n, space)))).size === 1,
    ms,
    'the nodes to converge',
  );
}
