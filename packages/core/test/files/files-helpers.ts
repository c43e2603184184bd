import type { MincaNode } from '../../src/node.js';
import { createMemoryTransportPair } from '../../src/sync/memory-transport.js';
import type { Message } from '../../src/sync/messages.js';
import { fingerprint } from '../sync-helpers.js';
import { watched, within } from './clock.js';

export { nodeWith } from '../sync-helpers.js';

/** Deterministic bytes of length `n`, different per `seed`. */
export function sample(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

export const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** Ids of the files held whole by `node` in `space`. */
export const whole = async (node: MincaNode, space: string) =>
  new Set(await node.files.whole(space));

/** Moves the fake clock until `a` and `b` hold the same versions of `space`, within 20 s. */
export const level = (a: MincaNode, b: MincaNode, space: string) =>
  within(
    20_000,
    async () => (await fingerprint(a, space)) === (await fingerprint(b, space)),
    'sync',
  );

/**
 * Connects `a` and `b` over watched transports: `toA.sent` counts what b sends a, `toB.sent`
 * what a sends b. `editFromB` may change or drop what b sends.
 */
export function link(a: MincaNode, b: MincaNode, editFromB?: (m: Message) => Message | null) {
  const [ta, tb] = createMemoryTransportPair();
  const fromA = watched(ta);
  const fromB = watched(tb, editFromB);
  return { fromA, fromB, peerOfA: a.connect(fromA), peerOfB: b.connect(fromB) };
}

/** fwant messages a transport sent. */
export const asks = (t: { sent: Map<string, number> }) => t.sent.get('fwant') ?? 0;
