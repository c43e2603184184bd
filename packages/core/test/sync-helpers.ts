import { afterEach, beforeEach, vi } from 'vitest';
import { createNode, type MincaNode, type NodeConfig } from '../src/node.js';
import {
  createMemoryTransportPair,
  type MemoryTransportOptions,
} from '../src/sync/memory-transport.js';
import type { Peer } from '../src/sync/peer.js';
import { fakeStores } from './fake-adapter.js';
import { useFakeClock } from './files/clock.js';

export { converged, fingerprint, until } from '../src/testing/converged.js';

/** A node over fresh fake stores; `config` adds to its config or replaces the stores. */
export const nodeWith = (config: Partial<NodeConfig> = {}) =>
  createNode({ stores: fakeStores(), ...config });

export const newNode = () => nodeWith();

/** Whether `peer` stands level with the other node in every space of `ids`. */
export const levelIn = (peer: Peer, ids: readonly string[]) =>
  ids.every((id) => peer.status(id)?.level === true);

/**
 * The nodes of one test file: `make` creates one (as {@link nodeWith}) and keeps it in `nodes`;
 * after each test every node in `nodes` is closed and the list emptied. With `fakeClock`, each
 * test runs on the fake clock, made real again once its nodes are closed.
 */
export function nodeFixture(options: { fakeClock?: boolean } = {}) {
  const nodes: MincaNode[] = [];
  if (options.fakeClock) beforeEach(() => useFakeClock());
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.close();
    if (options.fakeClock) vi.useRealTimers();
  });
  const make = async (config: Partial<NodeConfig> = {}) => {
    const node = await nodeWith(config);
    nodes.push(node);
    return node;
  };
  return { nodes, make };
}

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
