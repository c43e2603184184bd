// Random Negentropy item sets for property tests: timestamps that collide on purpose, ids that
// share long prefixes on purpose, so every bound and tie-break path runs.
import { fc } from '@fast-check/vitest';
import { sha256 } from '@noble/hashes/sha2.js';
import { toHex, utf8 } from '../src/bytes.js';

export interface Spec {
  seed: number;
  common: number;
  clientOnly: number;
  serverOnly: number;
  /** Timestamps are drawn from [base, base + spread). */
  base: bigint;
  spread: number;
  /** Ids start with this many fixed bytes, forcing long bound prefixes. */
  sharedPrefix: number;
  clientLimit: number;
  serverLimit: number;
}

export interface Item {
  ts: bigint;
  id: Uint8Array;
}

/** Distinct items drawn from `spec` and `salt`: the same arguments give the same items. */
export function itemsOf(
  spec: Spec,
  salt = '',
): { common: Item[]; client: Item[]; server: Item[]; more: (n: number) => Item[] } {
  let k = 0;
  const seen = new Set<string>();
  const next = (): Item => {
    let block: Uint8Array;
    let id: Uint8Array;
    // Distinct ids only: with a long shared prefix few bytes are left to differ.
    do {
      block = sha256(utf8(`${spec.seed}/${salt}${k++}`));
      id = sha256(block);
      id.fill(0xab, 0, spec.sharedPrefix);
    } while (seen.has(toHex(id)));
    seen.add(toHex(id));
    const r = new DataView(block.buffer).getUint32(0);
    // Stay at or below 2^64-2, the largest item timestamp.
    const room = 2n ** 64n - 1n - spec.base;
    return { ts: spec.base + (BigInt(r % spec.spread) % room), id };
  };
  const take = (n: number) => Array.from({ length: n }, next);
  return {
    common: take(spec.common),
    client: take(spec.clientOnly),
    server: take(spec.serverOnly),
    more: take,
  };
}

export const limit = fc.oneof(fc.constant(0), fc.integer({ min: 4096, max: 12000 }));

export const spec = fc.record({
  seed: fc.nat(),
  common: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 1500 })),
  clientOnly: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 300 })),
  serverOnly: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 300 })),
  base: fc.constantFrom(0n, 1_700_000_000_000n, 2n ** 53n - 100n, 2n ** 64n - 1000n),
  spread: fc.constantFrom(1, 3, 100, 999, 2 ** 31),
  sharedPrefix: fc.constantFrom(0, 0, 5, 30),
  clientLimit: limit,
  serverLimit: limit,
});
