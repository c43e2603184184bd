// Spaces open while used (spec 06 §4.1): a space nothing uses closes after the idle limit, past
// the most open the least recently used idle one closes, and calls and peers open it again —
// losing nothing, never closing under a write. On the fake clock.
import { describe, expect, it } from 'vitest';
import type { StoreFactory } from '../src/adapter.js';
import type { MincaNode } from '../src/node.js';
import { fakeStores } from './fake-adapter.js';
import { advance, within } from './files/clock.js';
import { connect, nodeFixture, sharedSpace } from './sync-helpers.js';

const IDLE_MS = 60_000;
const { make } = nodeFixture({ fakeClock: true });
const idleNode = (extra: Parameters<typeof make>[0] = {}) =>
  make({ openSpaces: { idleMs: IDLE_MS }, ...extra });
const open = (node: MincaNode) => node.spaces.stats().open;

/** Space stores of a factory open at once, now and at most; its commits can be held back. */
function watchedStores(): {
  stores: StoreFactory;
  now: () => number;
  max: () => number;
  hold: () => void;
  release: () => void;
} {
  const inner = fakeStores({ optional: true });
  let opened = 0;
  let most = 0;
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  const stores: StoreFactory = {
    open: async (path) => {
      const adapter = await inner.open(path);
      if (!path.startsWith('spaces/')) return adapter;
      most = Math.max(most, ++opened);
      let closed = false;
      return {
        ...adapter,
        commit: async (commit) => {
          await gate;
          return adapter.commit!(commit);
        },
        close: async () => {
          if (!closed) opened--;
          closed = true;
          await adapter.close?.();
        },
      };
    },
  };
  return {
    stores,
    now: () => opened,
    max: () => most,
    hold: () => {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release: () => {
      open?.();
      gate = undefined;
    },
  };
}

describe('spaces open while used', () => {
  it('closes a space idle past the limit, and a call opens it again with all it held', async () => {
    const node = await idleNode();
    const { id } = await node.spaces.create();
    for (let i = 0; i < 5; i++) await node.records.put(id, 'app.note', { i });
    expect(node.spaces.stats()).toMatchObject({ open: 1, members: 1, idleMs: IDLE_MS });
    await advance(IDLE_MS / 2, 1000);
    expect(open(node)).toBe(1);
    await within(IDLE_MS, () => open(node) === 0, 'the idle space to close', 1000);

    const notes = await node.records.list(id, 'app.note');
    const at = (body: unknown) => (body as { i: number }).i;
    expect(notes.map((n) => n.body).sort((a, b) => at(a) - at(b))).toEqual(
      [0, 1, 2, 3, 4].map((i) => ({ i })),
    );
    expect(open(node)).toBe(1);
  });

  it('never closes a space under a write: the write finishes, then it closes', async () => {
    const watched = watchedStores();
    const node = await idleNode({ stores: watched.stores });
    const { id } = await node.spaces.create();
    watched.hold();
    let written = false;
    const put = node.records.put(id, 'app.note', { slow: true }).then((r) => {
      written = true;
      return r;
    });
    // Far past the limit, the write still waiting on its commit: the space stays open.
    await advance(5 * IDLE_MS, 1000);
    expect(written).toBe(false);
    expect(open(node)).toBe(1);
    expect(watched.now()).toBe(1);
    watched.release();
    const record = await put;
    await within(2 * IDLE_MS, () => open(node) === 0, 'the space to close after', 1000);
    expect(watched.now()).toBe(0);
    expect(await node.records.get(id, 'app.note', record.id)).toMatchObject({
      body: { slow: true },
    });
  });

  it('keeps a space open while a listener listens', async () => {
    const node = await idleNode();
    const { id } = await node.spaces.create();
    const heard: number[] = [];
    const unsubscribe = await node.records.subscribe(id, () => heard.push(1));
    await advance(3 * IDLE_MS, 1000);
    expect(open(node)).toBe(1);
    await node.records.put(id, 'app.note', { n: 1 });
    await within(1000, () => heard.length > 0, 'the listener');
    unsubscribe();
    await within(2 * IDLE_MS, () => open(node) === 0, 'the space to close', 1000);
  });

  it('closes synced spaces on both sides while connected; a write opens them again and syncs', async () => {
    const [a, b] = [await idleNode(), await idleNode()];
    const space = await sharedSpace(a, [b]);
    await a.records.put(space, 'app.note', { from: 'a' });
    connect(a, b);
    await within(10_000, async () => (await b.records.list(space, 'app.note')).length === 1);
    // Heartbeats go on (a hello every 30 s), level: they keep neither side's space open.
    await within(3 * IDLE_MS, () => open(a) === 0 && open(b) === 0, 'both to close', 1000);
    await advance(2 * IDLE_MS, 1000);
    expect([open(a), open(b)]).toEqual([0, 0]);

    const note = await a.records.put(space, 'app.note', { from: 'a, later' });
    // Nothing on b asks for the space: a's hello opens it, and the sync brings the note.
    await within(10_000, () => open(b) === 1, 'b to open the space for a’s hello');
    await within(
      10_000,
      async () => (await b.records.get(space, 'app.note', note.id)) !== undefined,
    );
    const status = await b.spaces.status(space);
    expect(status.versions).toBe((await a.spaces.status(space)).versions);
  });

  it('a host closes the spaces it holds when idle; a member syncing opens one again', async () => {
    const host = await idleNode({ holding: {} });
    const [owner, member] = [await idleNode(), await idleNode()];
    // The host is allowed before the member joins, so the member's ticket names it.
    const { id: space } = await owner.spaces.create();
    await owner.spaces.allowHolder(space, host.did, 'host');
    await owner.spaces.setRole(space, member.did, 'writer');
    await member.spaces.join(await owner.spaces.share(space, member.did));
    for (let i = 0; i < 20; i++) await owner.records.put(space, 'app.post', { i });
    const [toHost] = connect(owner, host);
    await within(20_000, async () => (await owner.spaces.status(space)).peers[0]?.level === true);
    toHost.close('owner leaves');
    await within(
      3 * IDLE_MS,
      () => host.spaces.stats().held === 0,
      'the held space to close',
      1000,
    );

    // A member with nothing but its grant meets only the host, and gets every post from it.
    connect(member, host);
    await within(20_000, async () => (await member.records.list(space, 'app.post')).length === 20);
    expect(host.spaces.stats().held).toBe(1);
    const reply = await member.records.put(space, 'app.post', { reply: true });
    await within(10_000, async () => (await member.spaces.status(space)).peers[0]?.level === true);
    await within(
      3 * IDLE_MS,
      () => host.spaces.stats().held === 0,
      'the held space to close',
      1000,
    );
    // What the host took in survived its close: a fresh member gets the reply from it.
    const late = await idleNode();
    await owner.spaces.setRole(space, late.did, 'reader');
    await late.spaces.join(await owner.spaces.share(space, late.did));
    connect(late, host);
    await within(
      20_000,
      async () => (await late.records.get(space, 'app.post', reply.id)) !== undefined,
    );
  });
});

describe('hostile: a peer asking for many spaces', () => {
  it('cannot make the host hold more open than its most at once', async () => {
    const MAX = 3;
    const watched = watchedStores();
    const host = await make({ stores: watched.stores, holding: {}, openSpaces: { max: MAX } });
    const owner = await make();
    const spaces: string[] = [];
    for (let s = 0; s < 12; s++) {
      const { id } = await owner.spaces.create();
      await owner.spaces.allowHolder(id, host.did, 'host');
      for (let i = 0; i < 3; i++) await owner.records.put(id, 'app.post', { s, i });
      spaces.push(id);
    }
    connect(owner, host);
    // Only the owner's side is asked: asking the host would open its spaces.
    const levelIn = async () => {
      let n = 0;
      for (const id of spaces) if ((await owner.spaces.status(id)).peers[0]?.level) n++;
      return n;
    };
    await within(10 * 60_000, async () => (await levelIn()) === spaces.length, 'all level', 100);
    expect(watched.max()).toBeLessThanOrEqual(MAX);
    expect(host.spaces.stats()).toMatchObject({ max: MAX });
    expect(host.spaces.stats().open).toBeLessThanOrEqual(MAX);
    // Every space held whole, though no more than three were ever open at once.
    const held = await host.spaces.held();
    expect(held.map((h) => h.id).sort()).toEqual([...spaces].sort());
    for (const h of held) expect(h.versions).toBe((await owner.spaces.status(h.id)).versions);
  });
});
