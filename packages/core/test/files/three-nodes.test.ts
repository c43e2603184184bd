// The scene: A adds a 20 MiB video and a 200 KiB photo and goes away. B fetched the
// photo ahead but not the video; B reads the video; C then reads it from B, checking every
// chunk, past a peer that tampers with what it sends.
import { expect, it } from 'vitest';
import { decodeMessage, encodeMessage } from '../../src/sync/messages.js';
import { nodeFixture, sharedSpace } from '../sync-helpers.js';
import { advance, drive, within } from './clock.js';
import { asks, level, link, nodeWith, same, sample } from './files-helpers.js';

const { nodes } = nodeFixture({ fakeClock: true });

it('three nodes: photo ahead, video on reading, passed on from B, a tampering peer skipped', async () => {
  const a = await nodeWith();
  const b = await nodeWith();
  const c = await nodeWith();
  const t = await nodeWith({ fetchFiles: 'all' });
  nodes.push(a, b, c, t);
  const space = await sharedSpace(a, [b, c, t]);
  const videoBytes = sample(20 * 1024 * 1024, 1);
  const photoBytes = sample(200 * 1024, 2);
  const video = await drive(
    a.records.addFile(space, videoBytes, { mime: 'video/mp4', name: 'v.mp4' }),
  );
  const photo = await a.records.addFile(space, photoBytes, { mime: 'image/jpeg', name: 'p.jpg' });
  await a.records.put(space, 'app.post', { text: 'look', video, photo });

  const ab = link(a, b);
  const at = link(a, t);
  await level(a, b, space);
  await level(a, t, space);
  await within(30_000, async () => (await b.files.whole(space)).includes(photo.$file), 'photo');
  await within(60_000, async () => (await t.files.whole(space)).includes(video.$file), 't', 50);
  await advance(3_000, 50);
  expect(await b.files.whole(space)).not.toContain(video.$file);

  // B reads the video from A, then A goes away.
  expect(same(await drive(b.records.readFile(space, video), 60_000, 50), videoBytes)).toBe(true);
  ab.peerOfA.close();
  at.peerOfA.close();
  await advance(100);

  // C meets T first, which flips a byte in every chunk it sends, then B.
  await c.setFileLimits({ ahead: 0 });
  const ct = link(t, c);
  const send = ct.fromA.send.bind(ct.fromA);
  ct.fromA.send = (frame: Uint8Array) => {
    const m = decodeMessage(frame);
    if (m.t !== 'fdata') return send(frame);
    const c2 = m.c.map((x) => {
      if (!x) return x;
      const y = x.slice();
      y[7]! ^= 0x80;
      return y;
    });
    send(encodeMessage({ ...m, c: c2 }));
  };
  await level(t, c, space);
  const cb = link(b, c);
  await level(b, c, space);
  const progress: number[] = [];
  const read = await drive(
    c.records.readFile(space, video, { onProgress: ({ done }) => progress.push(done) }),
    60_000,
    50,
  );
  expect(same(read, videoBytes)).toBe(true);
  expect(progress.at(-1)).toBe(videoBytes.length);
  expect(asks(ct.fromB)).toBeGreaterThan(0); // T was asked, and moved past
  expect(asks(cb.fromB)).toBeGreaterThan(0); // B served it
  expect(same(await drive(c.records.readFile(space, photo), 60_000, 50), photoBytes)).toBe(true);
}, 120_000);
