/**
 * Waiting for nodes to hold the same versions of a space, for tests across packages: a space's
 * fingerprint, a bounded poll, and the two together.
 */
import { expect } from 'vitest';
import type { MincaNode } from '../node.js';
import { sleep } from '../timers.js';

/** The fingerprint of what `node` holds of `space`: equal on two nodes, they hold the same. */
export const fingerprint = async (node: MincaNode, space: string): Promise<string> =>
  (await node.spaces.status(space)).fingerprint;

/** Polls `check` every 10 ms until it is true, within `ms`; fails the test otherwise. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(10);
  }
  expect.fail(`timed out waiting for ${what}`);
}

/** Waits (within `ms`) until every node of `nodes` holds the same versions of `space`. */
export async function converged(nodes: MincaNode[], space: string, ms = 20_000): Promise<void> {
  await until(
    async () => new Set(await Promise.all(nodes.map((n) => fingerprint(n, space)))).size === 1,
    ms,
    'the nodes to converge',
  );
}
