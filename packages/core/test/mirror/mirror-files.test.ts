import { describe, expect, it } from 'vitest';
import { mirroredNode, twoDevices } from './mirror-helpers.ts';

const bytesOf = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * seed) & 0xff);

describe('files in mirrors', () => {
  it('a file goes to the mirror with its list, is read from there, and goes when unnamed', async () => {
    const { a, b, space, ticket, bucket } = await twoDevices();
    const bytes = bytesOf(600 * 1024, 7); // three chunks
    const photo = await a.node.records.addFile(space, bytes, { mime: 'image/png', name: 'p.png' });
    const post = await a.node.records.put(space, 'app.post', { text: 'look', photo });
    await a.node.close();

    const writer = (await bucket.list(`${space}/`))[0]!.split('/')[1]!;
    const fileKeys = await bucket.list(`files/${space}/${writer}/${photo.$file}/`);
    expect(fileKeys.map((k) => k.split('/').at(-1)).sort()).toEqual(['0', '1', '2', 'list']);

    await b.node.spaces.join(ticket); // never online with a: only the bucket between them
    await b.node.spaces.syncMirrors(space);
    const read = await b.node.records.readFile(space, photo);
    expect(Buffer.compare(read, bytes)).toBe(0);

    // b deletes the post: the file is named no more, so b pushes no copy of it, and a deletes
    // its own copy once it hears of the delete.
    await b.node.records.delete(space, 'app.post', post.id);
    await b.node.close();
    const a2 = await mirroredNode([bucket], a.backing);
    await a2.node.spaces.open(space);
    await a2.node.spaces.syncMirrors(space);
    await a2.node.spaces.syncMirrors(space); // the files push after the pull
    expect(await bucket.list(`files/${space}/`)).toEqual([]);
    expect([...a.errors, ...b.errors, ...a2.errors]).toEqual([]);
    await a2.node.close();
  });

  it('a damaged chunk in the mirror is refused, and the read waits for a good copy', async () => {
    const { a, b, space, ticket, bucket } = await twoDevices();
    const bytes = bytesOf(300 * 1024, 3);
    const doc = await a.node.records.addFile(space, bytes, { name: 'd.bin' });
    await a.node.records.put(space, 'app.doc', { doc });
    await a.node.close();
    const key = (await bucket.list(`files/${space}/`)).find((k) => k.endsWith('/1'))!;
    const good = (await bucket.get(key))!;
    const bad = good.slice();
    bad[5]! ^= 1;
    await bucket.put(key, bad);

    await b.node.spaces.join(ticket);
    await b.node.spaces.syncMirrors(space);
    const controller = new AbortController();
    const reading = b.node.records.readFile(space, doc, { signal: controller.signal });
    let settled = false;
    reading.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false); // it did not take the damaged chunk
    await bucket.put(key, good);
    controller.abort();
    await expect(reading).rejects.toMatchObject({ code: 'aborted' });
    const again = await b.node.records.readFile(space, doc);
    expect(Buffer.compare(again, bytes)).toBe(0);
    await b.node.close();
  });
});
