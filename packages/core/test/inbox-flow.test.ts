// Flow control on a connection (spec 05 §10.1): a node whose inbox holds more than 2 MiB of
// frames not handled yet stops reading from a transport that can pause, and reads again once
// it is under 512 KiB, so a peer pushing everything a new device lacks waits on its own side
// rather than in the device's memory, and never trips the 32 MiB cut-off.
import { describe, expect, it } from 'vitest';
import { encodeMessage } from '../src/sync/messages.js';
import { createVersions } from '../src/version.js';
import { pushingPeer, waitFor } from './scripted-peer.js';
import { nodeFixture } from './sync-helpers.js';

const { make } = nodeFixture();

describe('a connection’s inbox', () => {
  it('stops reading past 2 MiB waiting and reads again once it is handled; all arrive', async () => {
    const node = await make();
    const { key, space, spaceKey, p } = await pushingPeer(node);
    let paused = 0;
    let resumed = 0;
    const transport = p.transport;
    const pause = transport.pause!.bind(transport);
    const resume = transport.resume!.bind(transport);
    transport.pause = () => {
      paused++;
      pause();
    };
    transport.resume = () => {
      resumed++;
      resume();
    };
    // 6,000 versions of about 2 KiB, each signed: 12 MiB pushed in one go, 12 messages of
    // 500, arriving far faster than their signatures are checked.
    const count = 6_000;
    const versions = await createVersions(
      Array.from({ length: count }, (_, i) => ({
        space,
        collection: 'app.post',
        record: `r${i}`,
        supersedes: [],
        timestamp: 1_700_000_000_000 + i,
        files: [],
        body: { i, text: 'x'.repeat(2000) },
      })),
      spaceKey,
      key,
    );
    let sent = 0;
    for (let at = 0; at < count; at += 500) {
      const frame = encodeMessage({
        t: 'vers',
        s: space,
        v: versions.slice(at, at + 500).map((v) => v.bytes),
      });
      sent += frame.length;
      p.raw(frame);
    }
    expect(sent).toBeGreaterThan(12_000_000);
    await waitFor(
      async () => (await node.spaces.status(space)).versions >= count,
      60_000,
      'every pushed version stored',
    );
    expect(paused).toBeGreaterThan(0);
    expect(resumed).toBe(paused);
    expect(p.peer.endReason).toBeUndefined();
    expect((await node.records.list(space, 'app.post')).length).toBe(count);
  });
});
