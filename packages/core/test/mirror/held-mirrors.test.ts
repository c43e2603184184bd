/**
 * A node holding a space without its key (a host or carrier) mirrors it as a member does: a
 * member pushes through the host, and another member that only ever reads the bucket gets
 * every version and file. What comes in from the mirror passes the holder's checks and policy.
 */
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/blob-store.ts';
import type { MincaError } from '../../src/errors.ts';
import type { DataOffer } from '../../src/hosting/holding-policy.ts';
import type { MincaNode } from '../../src/node.ts';
import { fakeBlobStore } from '../fake-adapter.ts';
import {
  connect,
  converged,
  fingerprint,
  newNode,
  nodeFixture,
  sharedSpace,
  until,
} from '../sync-helpers.ts';
import { idsInMirror } from './mirror-helpers.ts';

const { nodes, make } = nodeFixture();

/** An owner's space with `posts` records and one file, held by `host` after one meeting. */
async function hostedSpace(
  host: MincaNode,
  reader: MincaNode,
  posts: number,
  fetchesFiles = false,
) {
  const owner = await newNode();
  nodes.push(owner);
  const space = await sharedSpace(owner, [reader]);
  await owner.spaces.allowHolder(space, host.did, 'host');
  for (let i = 0; i < posts; i++) await owner.records.put(space, 'app.post', { i });
  const bytes = new Uint8Array(300_000).map((_, i) => (i * 13) % 251);
  const ref = await owner.records.addFile(space, bytes, { mime: 'application/octet-stream' });
  await owner.records.put(space, 'app.post', { ref });
  const [toHost] = connect(owner, host);
  await until(async () => (await host.spaces.held()).some((h) => h.id === space), 5000, 'held');
  await converged([owner, host], space);
  // A host that keeps files has this one before the owner leaves.
  await until(
    async () => !fetchesFiles || (await host.files.whole(space)).includes(ref.$file),
    15_000,
    'the host to hold the file',
  );
  toHost.close('owner goes offline');
  return { owner, space, ref, bytes };
}

describe('mirrors of a space held without its key', () => {
  it('a host mirrors what a member brings; a member reading only the bucket gets it all', async () => {
    const bucket: BlobStore = fakeBlobStore();
    const errors: MincaError[] = [];
    const host = await make({
      holding: {},
      fetchFiles: 'all',
      mirrors: [bucket],
      onMirrorError: (e) => errors.push(e),
    });
    const reader = await make({ mirrors: [bucket] });
    const { owner, space, ref, bytes } = await hostedSpace(host, reader, 40, true);
    const status = await host.spaces.status(space);
    expect(status.mirrors).toHaveLength(1);
    // Closing pushes what is left: the versions, and the file held whole under the host's
    // writer, as a member's would be.
    await host.close();
    expect(errors).toEqual([]);
    expect((await idsInMirror(bucket, space)).size).toBe(status.versions);
    const writer = status.mirrors[0]!.writer;
    expect(await bucket.list(`files/${space}/${writer}/${ref.$file}/`)).toContain(
      `files/${space}/${writer}/${ref.$file}/list`,
    );

    // The reader never connects to anyone: the bucket is all it sees.
    await reader.spaces.syncMirrors(space);
    expect(await fingerprint(reader, space)).toBe(await fingerprint(owner, space));
    expect(await reader.records.list(space, 'app.post')).toHaveLength(41);
    const back = await reader.records.readFile(space, ref);
    expect(Buffer.from(back).equals(Buffer.from(bytes))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a host counts the spaces it holds without opening those idle: no mirror pull for it', async () => {
    const inner = fakeBlobStore();
    let reads = 0;
    const bucket: BlobStore = {
      ...inner,
      list: (prefix) => {
        reads++;
        return inner.list(prefix);
      },
      get: (key) => {
        reads++;
        return inner.get(key);
      },
    };
    const host = await make({
      holding: {},
      fetchFiles: 'all',
      mirrors: [bucket],
      openSpaces: { idleMs: 100 },
    });
    const reader = await make({});
    const { space } = await hostedSpace(host, reader, 5, true);
    const open = await host.spaces.held();
    await until(async () => host.spaces.stats().open === 0, 10_000, 'the space to close idle');
    // A close pushes what is left to the bucket; a listing waits for it to end.
    await host.spaces.held();

    reads = 0;
    const [counted] = await host.spaces.held();
    // The same counts as while open, read from the store; the space stays closed, unpulled.
    expect(counted).toEqual(open[0]);
    expect(counted!.files).toBeGreaterThan(300_000);
    expect(host.spaces.stats().open).toBe(0);
    expect(reads).toBe(0);
    // Opened for use, it pulls as ever.
    await host.spaces.status(space);
    await until(async () => reads > 0, 5000, 'the pull at open');
  });

  it('a host pulls from its mirror what members pushed there, and serves it to a peer', async () => {
    const bucket = fakeBlobStore();
    const host = await make({ holding: {}, mirrors: [{ store: bucket, pushDelayMs: 20 }] });
    const reader = await make({});
    const { owner, space } = await hostedSpace(host, reader, 5);
    // The reader learns from the owner that the host holds the space.
    const [toReader] = connect(owner, reader);
    await converged([owner, reader], space);
    toReader.close('parting');
    // The owner writes more and pushes it to the bucket only; the host finds it there.
    const pusher = await make({ mirrors: [bucket] });
    await owner.spaces.setRole(space, pusher.did, 'writer');
    await pusher.spaces.join(await owner.spaces.share(space, pusher.did));
    const [toPusher] = connect(owner, pusher);
    await converged([owner, pusher], space);
    toPusher.close('parting');
    for (let i = 0; i < 10; i++) await pusher.records.put(space, 'app.note', { i });
    await pusher.spaces.syncMirrors(space);
    await host.spaces.syncMirrors(space);
    expect(await fingerprint(host, space)).toBe(await fingerprint(pusher, space));
    connect(reader, host);
    await converged([reader, host], space);
    expect(await reader.records.list(space, 'app.note')).toHaveLength(10);
    // What a peer brings the host goes to the bucket after the push delay, unasked.
    const reply = await reader.records.put(space, 'app.reply', { ok: true });
    await until(async () => (await idsInMirror(bucket, space)).has(reply.version), 5000, 'push');
  });

  it("takes nothing from a mirror that the holder's data policy refuses, and says why", async () => {
    const bucket = fakeBlobStore();
    const pusher = await make({ mirrors: [bucket] });
    const errors: MincaError[] = [];
    const offers: DataOffer[] = [];
    const host = await make({
      holding: {
        acceptData: (offer) => {
          offers.push(offer);
          return offer.mirror ? 'the account is over its bytes' : undefined;
        },
      },
      mirrors: [bucket],
      onMirrorError: (e) => errors.push(e),
    });
    const { owner, space } = await hostedSpace(host, pusher, 3);
    const before = (await host.spaces.status(space)).versions;
    const [toPusher] = connect(owner, pusher);
    await converged([owner, pusher], space);
    toPusher.close('parting');
    for (let i = 0; i < 10; i++) await pusher.records.put(space, 'app.note', { i });
    await pusher.spaces.syncMirrors(space);

    await expect(host.spaces.syncMirrors(space)).rejects.toMatchObject({
      code: 'not_authorized',
      message: expect.stringContaining('the account is over its bytes'),
    });
    expect((await host.spaces.status(space)).versions).toBe(before);
    expect((await host.spaces.status(space)).mirrors[0]!.error).toContain('over its bytes');
    expect(errors.some((e) => e.code === 'not_authorized')).toBe(true);
    // Counted against the account that brought the space, as the policy's peer.
    const fromMirror = offers.filter((o) => o.mirror);
    expect(fromMirror.length).toBeGreaterThan(0);
    expect(fromMirror.every((o) => o.peer === owner.did && o.versions === 10)).toBe(true);
  });
});
