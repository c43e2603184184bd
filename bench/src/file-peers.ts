// One file read from 1, 2 and 3 peers at once, each sending at most the same byte rate (a
// throttled memory transport), all nodes in this process. An owner adds the file and goes; the
// peers hold it whole; each reading is by a fresh node, a member from the start (so the peers
// know it), that syncs its records from the peers it is linked to, then reads the file.
import { createHash, randomBytes } from 'node:crypto';
import { createMemoryTransportPair, createNode, type FileRef, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { throttled } from './throttled-transport.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Links `a` and `b`; what `a` sends is held to `bytesPerSecond` when given. */
function link(a: MincaNode, b: MincaNode, bytesPerSecond?: number) {
  const [ta, tb] = createMemoryTransportPair();
  const pa = a.connect(bytesPerSecond ? throttled(ta, { bytesPerSecond }) : ta);
  const pb = b.connect(tb);
  return () => {
    pa.close();
    pb.close();
  };
}

export interface PeersScene {
  /** Reads the file from the first `count` peers, each sending at `bytesPerSecond`: ms taken. */
  read(count: number, bytesPerSecond: number): Promise<number>;
  close(): Promise<void>;
}

/** An owner's file of `size` random bytes, held whole by `peerCount` peers, read `reads` times. */
export async function peersScene(
  size: number,
  peerCount: number,
  reads: number,
): Promise<PeersScene> {
  const owner = await createNode({ stores: memoryStores() });
  const peers: MincaNode[] = [];
  for (let i = 0; i < peerCount; i++)
    peers.push(await createNode({ stores: memoryStores(), fetchFiles: 'all' }));
  const space = (await owner.spaces.create()).id;
  const join = async (node: MincaNode) => {
    await owner.spaces.setRole(space, node.did, 'reader');
    await node.spaces.join(await owner.spaces.share(space, node.did));
  };
  for (const peer of peers) await join(peer);
  const readers: MincaNode[] = [];
  for (let i = 0; i < reads; i++) {
    const reader = await createNode({ stores: memoryStores() });
    await join(reader);
    await reader.setFileLimits({ ahead: 0 });
    readers.push(reader);
  }
  const bytes = new Uint8Array(randomBytes(size));
  const want = sha(bytes);
  const ref: FileRef = await owner.records.addFile(space, bytes);
  await owner.records.put(space, 'app.file', { ref });
  // The first peer fetches from the owner, the next from the one before, unthrottled.
  let from = owner;
  for (const peer of peers) {
    const unlink = link(from, peer);
    await until(async () => (await peer.files.whole(space)).includes(ref.$file), 600_000, 'a peer');
    unlink();
    from = peer;
  }
  return {
    async read(count, bytesPerSecond) {
      const reader = readers.shift();
      if (!reader) throw new Error('no reader left');
      try {
        const unlinks = peers.slice(0, count).map((p) => link(p, reader, bytesPerSecond));
        await until(
          async () => (await reader.files.named(space)).includes(ref.$file),
          60_000,
          'the record',
        );
        // Every link has its peer sharing the space before the clock starts.
        await until(
          async () => (await reader.spaces.status(space)).peers.length >= count,
          60_000,
          'the peers',
        );
        const start = performance.now();
        const read = await reader.records.readFile(space, ref);
        const ms = performance.now() - start;
        if (sha(read) !== want) throw new Error('the file read is not the file added');
        for (const unlink of unlinks) unlink();
        return ms;
      } finally {
        await reader.close();
      }
    },
    async close() {
      for (const node of [owner, ...peers, ...readers]) await node.close();
    },
  };
}
