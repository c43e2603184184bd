// A host keeps every file (`fetchFiles: 'all'`). Asked for one before its own fetch started (a
// reader fetching ahead as soon as the record arrives), it starts at once and answers when it
// has it, so the reader doesn't conclude nobody has the file and rest for 10 minutes.
import { expect, it } from 'vitest';
import { CHUNK_BYTES } from '../../src/files/chunks.js';
import type { MincaNode } from '../../src/node.js';
import { nodeFixture, sharedSpace } from '../sync-helpers.js';
import { advance, within } from './clock.js';
import { level, link, sample, whole } from './files-helpers.js';

const { make } = nodeFixture({ fakeClock: true });
const holds = async (n: MincaNode, s: string, id: string) => (await whole(n, s)).has(id);

it('a host asked for a file it will keep but has not fetched yet fetches it now and answers', async () => {
  const host = await make({ fetchFiles: 'all' });
  const [writer, reader] = [await make(), await make()];
  const space = await sharedSpace(writer, [reader, host]);
  link(writer, host);
  const toHost = link(reader, host);
  await level(reader, host, space);
  const ref = await writer.records.addFile(space, sample(3 * CHUNK_BYTES));
  await writer.records.put(space, 'app.post', { ref });
  // The record reaches the host and the reader; the host's own pass is ~2 s away, and the
  // reader asks it first, as soon as it can.
  await level(writer, host, space);
  await level(reader, host, space);
  expect(await holds(host, space, ref.$file)).toBe(false);
  const read = reader.records.readFile(space, ref);
  const took = await within(3_000, () => holds(reader, space, ref.$file), 'the reader to have it');
  // Well before the host's own pass: it fetched when asked.
  expect(took).toBeLessThan(1_500);
  expect((await read).length).toBe(3 * CHUNK_BYTES);
  expect(toHost.peerOfA.endReason).toBeUndefined();
  await advance(100);
});
