// More small versions than one `vers` message may carry: the pushing side splits them by count
// as well as bytes. (Unsplit, the receiver cut the connection, and the pusher, reconnected,
// pushed everything again, forever: the 100,000-record benchmark never converged.)
import { describe, expect, it } from 'vitest';
import { MAX_VERSIONS_PER_MESSAGE } from '../src/sync/messages.js';
import { connect, converged, newNode, nodeFixture, sharedSpace } from './sync-helpers.js';

const { nodes } = nodeFixture();

describe('many small versions', () => {
  it('are pushed in messages of at most MAX_VERSIONS_PER_MESSAGE', async () => {
    // The starter (smaller DID) pushes what the other lacks: make the writer the starter.
    let [owner, member] = [await newNode(), await newNode()];
    nodes.push(owner, member);
    if (owner.did > member.did) [owner, member] = [member, owner];
    const space = await sharedSpace(owner, [member]);
    const count = MAX_VERSIONS_PER_MESSAGE + 200;
    for (let i = 0; i < count; i++) await owner.records.put(space, 'app.n', { i });
    const [pa] = connect(owner, member);
    await converged([owner, member], space, 60_000);
    expect(pa.endReason).toBeUndefined();
    expect((await member.spaces.status(space)).versions).toBe(count + 1);
  }, 120_000);
});
