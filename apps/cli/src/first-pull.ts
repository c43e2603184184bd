/**
 * A read waits for the space's first pull from its mirrors (a data folder's segments): a
 * device new to the folder holds nothing of a space until that pull, so a read before it
 * would show nothing as if there were nothing.
 */
import type { MincaNode } from '@minca/core';

/** How long a read waits for the first pull before it says it has not pulled yet. */
export const FIRST_PULL_WAIT_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens `space` and waits until each of its mirrors has pulled once (or failed to), within
 * `timeoutMs`. Gives what a person should be told when one hasn't: nothing when all pulled.
 */
export async function waitForFirstPull(
  node: MincaNode,
  space: string,
  timeoutMs = FIRST_PULL_WAIT_MS,
): Promise<string | undefined> {
  await node.spaces.open(space);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { mirrors } = await node.spaces.status(space);
    const waiting = mirrors.filter((m) => m.pulledAt === undefined && m.error === undefined);
    const failed = mirrors.filter((m) => m.pulledAt === undefined && m.error !== undefined);
    if (waiting.length === 0) {
      if (failed.length === 0) return undefined;
      return `space ${space} has not been pulled from its data folder yet (${failed[0]!.error}): what is shown may lack records`;
    }
    if (Date.now() >= deadline)
      return `space ${space} has not been pulled from its data folder yet (still reading it after ${Math.round(timeoutMs / 1000)} s): what is shown may lack records`;
    await sleep(20);
  }
}
