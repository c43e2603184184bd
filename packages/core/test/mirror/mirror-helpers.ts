import type { BlobStore } from '../../src/blob-store.ts';
import type { MincaError } from '../../src/errors.ts';
import type { MirrorErrorContext } from '../../src/index.ts';
import { decodeSegment, parseSegmentKey } from '../../src/mirror/segment.ts';
import { createNode, type NodeConfig } from '../../src/node.ts';
import { decodeVersion } from '../../src/version.ts';
import { type Data, fakeBlobStore, fakeStores } from '../fake-adapter.ts';

/** A node over fake stores kept in `backing` (so it can restart), mirroring to `mirrors`. */
export async function mirroredNode(
  mirrors: NodeConfig['mirrors'],
  backing = new Map<string, Data>(),
  errors: Array<{ error: MincaError; where: MirrorErrorContext }> = [],
) {
  const node = await createNode({
    stores: fakeStores({ backing }),
    mirrors,
    onMirrorError: (error, where) => errors.push({ error, where }),
  });
  return { node, backing, errors };
}

/**
 * Owner A and writer B of one space, each with its own stores, both mirroring to `bucket`
 * (through `mirror`, a mirror config over it, when given).
 */
export async function twoDevices(
  bucket = fakeBlobStore(),
  mirror: NonNullable<NodeConfig['mirrors']>[number] = bucket,
) {
  const a = await mirroredNode([mirror]);
  const b = await mirroredNode([mirror]);
  const { id: space } = await a.node.spaces.create();
  await a.node.spaces.setRole(space, b.node.did, 'writer');
  const ticket = await a.node.spaces.share(space, b.node.did);
  return { a, b, space, ticket, bucket };
}

/** Every version id held in the segments of `space` in `store`. */
export async function idsInMirror(store: BlobStore, space: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const key of await store.list(`${space}/`)) {
    const name = parseSegmentKey(key);
    const bytes = name && (await store.get(key));
    if (!name || !bytes) continue;
    for (const v of decodeSegment(name, bytes).versions) ids.add(decodeVersion(v).id);
  }
  return ids;
}
