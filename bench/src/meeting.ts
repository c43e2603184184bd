// What the benchmarks of two nodes meeting in one process share: a link over memory, a bounded
// wait until they stand level, and the CPU spent meanwhile.
import { createMemoryTransportPair, type MincaNode, type Peer } from '@minca/core';

/** Bounds each wait. */
const DEADLINE_MS = 300_000;

/** Waits until `done()`, checking every 10 ms; throws past 5 minutes, naming `what`. */
export async function until(done: () => boolean, what: string): Promise<void> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > DEADLINE_MS) throw new Error(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A connection between `owner` and `host` over memory; the owner's end. */
export function link(owner: MincaNode, host: MincaNode): Peer {
  const [x, y] = createMemoryTransportPair();
  const peer = owner.connect(x);
  host.connect(y);
  return peer;
}

/** Whether the connection stands level with its peer in every space of `ids`. */
export function levelIn(peer: Peer, ids: readonly string[]): boolean {
  return ids.every((id) => peer.status(id)?.level === true);
}

/** CPU ms of this process (every thread) since `before`, from `process.cpuUsage()`. */
export function cpuMsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
