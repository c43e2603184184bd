/**
 * The product page's example, `sqliteStores(new DatabaseSync('node.sqlite'))`, as a program
 * does it: a node writes a record into node.sqlite, closes, and a new node on a new connection
 * reads it back. `connect` is the runtime's own driver.
 */
import { createNode, SigningKey } from '@minca/core';
import { sqliteStores } from '@minca/sqlite';
import { expect } from 'vitest';
import type { Connection } from './suite.ts';

export async function pageExample(connect: () => Connection): Promise<void> {
  const key = SigningKey.generate();
  const db = connect();
  const node = await createNode({ stores: sqliteStores(db), key });
  const space = await node.spaces.create();
  const post = await node.records.put(space.id, 'app.post', { text: 'Look' });
  await node.close();
  db.close();

  const again = connect();
  const reopened = await createNode({ stores: sqliteStores(again), key });
  const read = await reopened.records.get(space.id, 'app.post', post.id);
  expect(read?.body).toEqual({ text: 'Look' });
  await reopened.close();
  again.close();
}
