// A host with subscriptions learns, as it starts, what each held space takes: its versions and
// its file chunks, so an account over its bytes stays refused across a restart. A real SQLite
// host store and folder; the space's owner is a node in this process over a memory transport.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryTransportPair, createNode, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { afterAll, describe, expect, it } from 'vitest';
import { openHostNode } from '../src/host/host-node.ts';
import { until } from './minca.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function link(a: MincaNode, b: MincaNode): () => void {
  const [ta, tb] = createMemoryTransportPair();
  const peers = [a.connect(ta), b.connect(tb)];
  return () => {
    for (const p of peers) p.close('done');
  };
}

describe('a host with subscriptions, started again', () => {
  it("counts each held space's versions and file chunks against its account", async () => {
    const data = await mkdtemp(join(tmpdir(), 'minca-policy-'));
    dirs.push(data);
    const owner = await createNode({ stores: memoryStores() });
    let host = await openHostNode(data, { holding: 'subscriptions' });
    try {
      await host.subscriptions.add({ account: owner.did, spaces: 1, bytes: 10_000_000 });
      const space = (await owner.spaces.create()).id;
      await owner.spaces.allowHolder(space, host.node.did, 'host');
      const bytes = new Uint8Array(600_000).map((_, i) => (i * 7 + 3) & 0xff);
      const ref = await owner.records.addFile(space, bytes);
      await owner.records.put(space, 'app.post', { ref });
      const unlink = link(owner, host.node);
      await until(
        // Unknown here until the owner's offer is taken.
        async () =>
          (await host.node.files.whole(space).catch(() => [] as string[])).includes(ref.$file),
        'the file held',
      );
      unlink();
      const counted = host.policy?.usage().get(space) ?? 0;
      await host.close();

      host = await openHostNode(data, { holding: 'subscriptions' });
      const [held] = await host.node.spaces.held();
      // Three chunks, each sealed with 40 bytes more.
      expect(held).toMatchObject({ id: space, files: 600_000 + 3 * 40 });
      expect(held!.bytes).toBeGreaterThan(0);
      expect(host.policy?.usage()).toEqual(new Map([[space, held!.bytes + held!.files]]));
      expect(counted).toBe(held!.bytes + held!.files);
    } finally {
      await host.close();
      await owner.close();
    }
  });
});
