// A batch's versions that come together are checked over one tree (`rootsOf`): the roots it
// gives must be `rootOf`'s, leaf by leaf, whatever the paths claim.
import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type BatchLeaf, merkleTree, rootOf, rootsOf } from '../src/batch-tree.js';
import { decodeStrict, encodeCbor } from '../src/encoding.js';
import { randomId } from '../src/ids.js';
import { SigningKey } from '../src/keys.js';
import { sha256 } from '../src/primitives.js';
import { randomKey } from '../src/seal.js';
import { createVersions, decodeVersion, verifyVersions } from '../src/version.js';
import { drafts, errorCode } from './version-fixture.js';

const leafOf = (n: number) => sha256(new Uint8Array([n, n >> 8]));

/** Every leaf of a tree of `size` with its own path. */
function whole(size: number): BatchLeaf[] {
  const leaves = Array.from({ length: size }, (_, i) => leafOf(i));
  const tree = merkleTree(leaves);
  return leaves.map((leaf, index) => ({ leaf, index, path: tree.paths[index]! }));
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const flipped = (bytes: Uint8Array) => bytes.map((b, k) => (k === 0 ? b ^ 1 : b));
const alone = (leaves: readonly BatchLeaf[], size: number) =>
  leaves.map((l) => rootOf(l.leaf, l.index, size, l.path));

describe('rootsOf', () => {
  it('gives rootOf’s root for each leaf of a whole batch, of any size', () => {
    for (const size of [2, 3, 5, 8, 13, 64, 100]) {
      const leaves = whole(size);
      const roots = rootsOf(leaves, size);
      expect(roots).toEqual(alone(leaves, size));
      expect(new Set(roots.map((r) => r && Buffer.from(r).toString('hex'))).size).toBe(1);
    }
  });

  it('gives rootOf’s answer for a leaf whose path was changed at any level, the rest whole', () => {
    const size = 64;
    for (const at of [0, 7, 31, 63]) {
      const leaves = whole(size);
      for (let level = 0; level < leaves[at]!.path.length; level++) {
        const changed = leaves.map((l, i) =>
          i === at ? { ...l, path: l.path.map((p, j) => (j === level ? flipped(p) : p)) } : l,
        );
        const roots = rootsOf(changed, size);
        expect(roots).toEqual(alone(changed, size));
        // Its root is not the batch's: a sibling changed high up is not taken on a shared node.
        expect(roots[at]).not.toEqual(roots[at === 0 ? 1 : 0]);
      }
      // Cut short, one too long, or another index's path.
      for (const path of [
        leaves[at]!.path.slice(1),
        [...leaves[at]!.path, leafOf(999)],
        leaves[(at + 1) % size]!.path,
      ]) {
        const changed = leaves.map((l, i) => (i === at ? { ...l, path } : l));
        expect(rootsOf(changed, size)).toEqual(alone(changed, size));
      }
    }
  });

  it('gives rootOf’s answer for each leaf of any part of a batch, whatever its paths say', () => {
    // Parts as pages of a pull cut them (a run) and any other (a subset), each leaf's path its
    // own or changed: a sibling flipped, cut short, one too long, or another leaf's.
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 100 }).chain((size) =>
          fc.record({
            size: fc.constant(size),
            part: fc.oneof(
              fc
                .tuple(fc.nat(size - 1), fc.nat(size - 1))
                .map(([a, b]) => range(Math.min(a, b), Math.max(a, b) + 1)),
              fc.uniqueArray(fc.nat(size - 1), { minLength: 1, maxLength: size }),
            ),
            changes: fc.array(fc.record({ leaf: fc.nat(), level: fc.nat(), how: fc.nat(3) }), {
              maxLength: 3,
            }),
          }),
        ),
        ({ size, part, changes }) => {
          const all = whole(size);
          const leaves = part.map((i) => all[i]!);
          for (const { leaf, level, how } of changes) {
            const at = leaf % leaves.length;
            const { path } = leaves[at]!;
            const changed =
              how === 0
                ? path.map((p, j) => (j === level % path.length ? flipped(p) : p))
                : how === 1
                  ? path.slice(1)
                  : how === 2
                    ? [...path, leafOf(999)]
                    : all[(leaves[at]!.index + 1) % size]!.path;
            leaves[at] = { ...leaves[at]!, path: changed };
          }
          expect(rootsOf(leaves, size)).toEqual(alone(leaves, size));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('builds one tree over a run of a batch, as a page of a pull ends inside it', () => {
    for (const size of [5, 64, 100]) {
      const all = whole(size);
      for (const [from, to] of [
        [0, 3],
        [2, size],
        [1, size - 1],
      ]) {
        const run = all.slice(from, to);
        const roots = rootsOf(run, size);
        expect(roots).toEqual(alone(run, size));
        // One root object for all: the tree was built once, not a path folded per leaf.
        expect(new Set(roots).size).toBe(1);
      }
    }
  });

  it('follows each path alone when an index comes twice or lies past the batch', () => {
    const leaves = whole(16);
    const twice = [...leaves.slice(0, 15), { ...leaves[15]!, index: 2 }];
    expect(rootsOf(twice, 16)).toEqual(alone(twice, 16));
    const beyond = [...leaves.slice(0, 15), { ...leaves[15]!, index: 16 }];
    expect(rootsOf(beyond, 16)).toEqual(alone(beyond, 16));
  });
});

describe('verifyVersions over a batch', () => {
  const key = SigningKey.generate();
  const spaceKey = randomKey();
  const draft = drafts({ space: randomId(), timestamp: 1_780_000_000_000 });

  it('takes the batch or a run of it, and refuses either with any one version’s path changed', async () => {
    const made = await createVersions(
      Array.from({ length: 8 }, (_, i) => draft({ body: { i } })),
      spaceKey,
      key,
      { perSignature: 8 },
    );
    const versions = made.map((v) => decodeVersion(v.bytes.slice()));
    await verifyVersions(versions);
    await verifyVersions(versions.slice(2, 7));
    for (const at of [0, 5]) {
      const items = decodeStrict(made[at]!.bytes) as unknown[];
      const [sig, n, i, path] = items[9] as [Uint8Array, number, number, Uint8Array[]];
      const forged = [
        ...path.map((_, level) => [sig, n, i, path.map((p, j) => (j === level ? flipped(p) : p))]),
        [sig, n, i ^ 1, path],
        [sig, n, i, path.slice(0, -1)],
      ];
      for (const proof of forged) {
        const bad = decodeVersion(encodeCbor([...items.slice(0, 9), proof]));
        const batch = versions.map((v, j) => (j === at ? bad : v));
        expect(await errorCode(() => verifyVersions(batch))).toBe('invalid_version');
        // And in a run of the batch, as a page of a pull ends inside it.
        expect(await errorCode(() => verifyVersions(batch.slice(at, at + 3)))).toBe(
          'invalid_version',
        );
      }
    }
  });

  it('checks versions of several batches however they come mixed, each against its own signature', async () => {
    const batch = async (signer: SigningKey) => {
      const made = await createVersions(
        Array.from({ length: 8 }, (_, i) => draft({ body: { i } })),
        spaceKey,
        signer,
        { perSignature: 8 },
      );
      return made.map((v) => v.bytes);
    };
    const [a, b, c] = [await batch(key), await batch(key), await batch(SigningKey.generate())];
    const mixed = () =>
      range(0, 8).flatMap((i) => [a[i]!, b[i]!, c[i]!].map((x) => decodeVersion(x.slice())));
    await verifyVersions(mixed());
    // One of a's versions with b's signature (same author and size): refused wherever it
    // stands, after a version of b, of a or of c.
    const items = decodeStrict(a[3]!) as unknown[];
    const [, n, i, path] = items[9] as [Uint8Array, number, number, Uint8Array[]];
    const bSignature = (decodeStrict(b[3]!) as unknown[][])[9]![0] as Uint8Array;
    const bad = encodeCbor([...items.slice(0, 9), [bSignature, n, i, path]]);
    for (const at of [0, 4, 8, 9, 23]) {
      const versions = mixed();
      versions[at] = decodeVersion(bad);
      expect(await errorCode(() => verifyVersions(versions))).toBe('invalid_version');
    }
  });
});
