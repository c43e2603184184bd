// The smallest minca program: a node over in-memory stores creates a space, writes records,
// edits and deletes one, and prints what it reads back.
import { createNode } from '@minca/core';
import { memoryStores } from '@minca/memory';

const node = await createNode({ stores: memoryStores() });
const space = await node.spaces.create();
console.log(`node ${node.did}\nspace ${space.id}\n`);

const first = await node.records.put(space.id, 'app.post', { text: 'Hello, minca' });
await node.records.put(space.id, 'app.post', { text: 'Records only ever add up' });
const doomed = await node.records.put(space.id, 'app.post', { text: 'This one goes' });

await node.records.put(space.id, 'app.post', { text: 'Hello, minca (edited)' }, { id: first.id });
await node.records.delete(space.id, 'app.post', doomed.id);

for (const post of await node.records.list(space.id, 'app.post', { order: 'oldest' })) {
  console.log(
    `${new Date(post.timestamp).toISOString()}  ${post.id}  ${JSON.stringify(post.body)}`,
  );
}
const status = await node.spaces.status(space.id);
console.log(`\n${status.versions} versions, fingerprint ${status.fingerprint}`);
await node.close();
