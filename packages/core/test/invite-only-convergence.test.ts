import { describe, expect, it } from 'vitest';
import { connect, converged, nodeFixture, until } from './sync-helpers.js';

const fixture = nodeFixture();
const make = (holding = false) => fixture.make(holding ? { holding: {} } : {});

/** A fixed sequence of small delays, so messages interleave the same way on every run. */
function delays(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % 7;
  };
}

const INVITEES = 6;
const RECORDS = 15;

describe('invitees who meet only a host converge', () => {
  it('takes an invitee’s records once its acceptance stands, though refused before', async () => {
    const [owner, host] = [await make(), await make(true)];
    const { id: space } = await owner.spaces.create();
    await owner.spaces.allowHolder(space, host.did, 'host');
    const [toHost] = connect(owner, host);
    await until(async () => (await host.spaces.held()).some((h) => h.id === space), 5000, 'held');
    await converged([owner, host], space);
    toHost.close('the owner leaves');
    // Invited after: the host learns the earlier's offer only from the earlier's own store.
    // The second starts reconciling with the host (the smaller DID does): it asks for the
    // first's acceptance before the offer it stands on, which arrives once sys.* is past.
    const first = await make();
    let starter = await make();
    while (starter.did > host.did) starter = await make();
    const other = first;
    for (const n of [other, starter]) await n.spaces.join(await owner.spaces.invite(space));
    connect(other, host);
    for (let r = 0; r < 5; r++) await other.records.put(space, 'app.post', { r });
    await converged([other, host], space);

    connect(starter, host);
    await converged([starter, host], space);
    expect(await starter.records.list(space, 'app.post')).toHaveLength(5);
    await until(
      async () => {
        const [peer] = (await starter.spaces.status(space)).peers;
        return peer?.did === host.did && peer.level && peer.synced;
      },
      10_000,
      'level with the host',
    );
  });

  it('every record reaches everyone, and each ends level with the host', async () => {
    const [owner, host] = [await make(), await make(true)];
    const { id: space } = await owner.spaces.create();
    await owner.spaces.allowHolder(space, host.did, 'host');
    // Invited only (no grant): each one's role reaches the others as its acceptance, through
    // the host, in whatever order the sessions bring it.
    const invitees = await Promise.all(Array.from({ length: INVITEES }, () => make()));
    for (const n of invitees) await n.spaces.join(await owner.spaces.invite(space));
    const [toHost] = connect(owner, host, { delay: delays(1) });
    await until(async () => (await host.spaces.held()).some((h) => h.id === space), 5000, 'held');
    await converged([owner, host], space);
    toHost.close('the owner leaves');

    invitees.forEach((n, i) => void connect(n, host, { delay: delays(i + 2) }));
    await Promise.all(
      invitees.map(async (n, i) => {
        for (let r = 0; r < RECORDS; r++) {
          await n.records.put(space, 'app.post', { i, r });
          await new Promise((done) => setTimeout(done, (i * 7 + r * 3) % 11));
        }
      }),
    );
    await converged([host, ...invitees], space, 30_000);
    for (const n of invitees) {
      expect(await n.records.list(space, 'app.post')).toHaveLength(INVITEES * RECORDS);
      await until(
        async () =>
          (await n.spaces.status(space)).peers.every(
            (p) => p.did === host.did && p.level && p.synced,
          ),
        10_000,
        'level with the host',
      );
    }
    // The owner, back, gets them all too.
    connect(owner, host);
    await converged([owner, host], space, 30_000);
    expect(await owner.records.list(space, 'app.post')).toHaveLength(INVITEES * RECORDS);
  });
});
