import { expect, it } from 'vitest';
import { createNode, type SpaceChange } from '../src/index.js';
import { fakeStores } from './fake-adapter.js';

it('node.invalidate reads stores another writer changed, and tells listeners', async () => {
  // Two nodes over one factory: each keeps its own view of the same stores in memory.
  const stores = fakeStores();
  const daemon = await createNode({ stores });
  const command = await createNode({ stores });
  const space = await daemon.spaces.create();
  const heard: SpaceChange[] = [];
  await daemon.records.subscribe(space.id, (change) => heard.push(change));

  await command.records.put(space.id, 'app.note', { text: 'from another writer' });
  expect(await daemon.records.list(space.id, 'app.note')).toEqual([]);

  // Only the spaces named are read again.
  await daemon.invalidate([]);
  expect(await daemon.records.list(space.id, 'app.note')).toEqual([]);
  await daemon.invalidate([space.id]);
  const notes = await daemon.records.list<{ text: string }>(space.id, 'app.note');
  expect(notes.map((n) => n.body.text)).toEqual(['from another writer']);
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(heard).toEqual([{ space: space.id, collections: ['app.note'] }]);

  // Nothing changed since: nobody is told again.
  await daemon.invalidate();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(heard).toHaveLength(1);

  // The registry is read again too: a space another writer added is found.
  const added = await command.spaces.create();
  await daemon.invalidate();
  expect(await daemon.spaces.list()).toContain(added.id);
  await daemon.close();
  await command.close();
});
