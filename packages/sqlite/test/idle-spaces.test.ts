// Spaces open while used, over a real SQLite file (spec 06 §4.1): a host closes the spaces it
// holds once idle, and opens them again from the database when a member syncs, with everything
// it took in; a member's own space too. Real time, with an idle limit of half a second.
import { createMemoryTransportPair, createNode, type MincaNode } from '@minca/core';
import { memoryStores } from '@minca/memory';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

const IDLE_MS = 500;
let dir: TempDir;
const nodes: MincaNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.close();
  dir?.dispose();
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) expect.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const node = async (config: Partial<Parameters<typeof createNode>[0]> = {}) => {
  const made = await createNode({
    stores: memoryStores(),
    openSpaces: { idleMs: IDLE_MS },
    ...config,
  });
  nodes.push(made);
  return made;
};
const connect = (a: MincaNode, b: MincaNode) => {
  const [x, y] = createMemoryTransportPair();
  return [a.connect(x), b.connect(y)] as const;
};
const level = (n: MincaNode, space: string) => async () =>
  (await n.spaces.status(space)).peers[0]?.level === true;

describe('spaces open while used, over SQLite', () => {
  it('a host reopens a held space from its database for a member, losing nothing', async () => {
    dir = new TempDir();
    const host = await node({ stores: sqliteStores(dir.open()), holding: {} });
    const [owner, member] = [await node(), await node()];
    const { id: space } = await owner.spaces.create();
    await owner.spaces.allowHolder(space, host.did, 'host');
    await owner.spaces.setRole(space, member.did, 'writer');
    await member.spaces.join(await owner.spaces.share(space, member.did));
    for (let i = 0; i < 50; i++) await owner.records.put(space, 'app.post', { i });

    const [toHost] = connect(owner, host);
    await until(level(owner, space), 'the host to hold the space');
    toHost.close('owner leaves');
    await until(() => host.spaces.stats().held === 0, 'the held space to close');

    connect(member, host);
    await until(async () => (await member.records.list(space, 'app.post')).length === 50, 'posts');
    const reply = await member.records.put(space, 'app.reply', { hi: true });
    await until(level(member, space), 'the host to take the reply');
    await until(() => host.spaces.stats().held === 0, 'the held space to close again');

    // The owner comes back: the reply reaches it from the host's database.
    connect(owner, host);
    await until(
      async () => (await owner.records.get(space, 'app.reply', reply.id)) !== undefined,
      'the reply',
    );
  });

  it('a member node closes its own idle space and reads it back from SQLite', async () => {
    dir = new TempDir();
    const alone = await node({ stores: sqliteStores(dir.open()) });
    const { id } = await alone.spaces.create();
    const written = await alone.records.putMany(
      id,
      'app.note',
      Array.from({ length: 200 }, (_, i) => ({ body: { i } })),
    );
    await until(() => alone.spaces.stats().open === 0, 'the space to close');
    const notes = await alone.records.list(id, 'app.note');
    expect(notes.map((n) => n.id).sort()).toEqual(written.map((w) => w.id).sort());
    expect(alone.spaces.stats().open).toBe(1);
  });
});
