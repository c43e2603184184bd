import type { MincaNode } from '../../src/node.js';

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
