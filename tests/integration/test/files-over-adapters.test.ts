// Files over every real storage adapter: chunks are entries of the space's store, so a file
// added before a restart reads back after it, whole and checked.
import 'fake-indexeddb/auto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHUNK_BYTES, createNode, type StoreFactory } from '@minca/core';
import { directoryStores } from '@minca/folder';
import { indexedDBStores } from '@minca/idb';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';

interface Backend {
  name: string;
  open(): { first: StoreFactory; reopen: () => StoreFactory; teardown: () => void };
}

function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'minca-files-'));
  return { dir, teardown: () => rmSync(dir, { recursive: true, force: true }) };
}

const backends: Backend[] = [
  {
    name: 'directory',
    open: () => {
      const { dir, teardown } = tempDir();
      return { first: directoryStores(dir), reopen: () => directoryStores(dir), teardown };
    },
  },
  {
    name: 'sqlite (better-sqlite3)',
    open: () => {
      const { dir, teardown } = tempDir();
      let db = new Database(join(dir, 'node.sqlite'));
      return {
        first: sqliteStores(db),
        reopen: () => {
          db.close();
          db = new Database(join(dir, 'node.sqlite'));
          return sqliteStores(db);
        },
        teardown: () => {
          db.close();
          teardown();
        },
      };
    },
  },
  {
    name: 'IndexedDB (fake-indexeddb)',
    open: () => {
      const indexedDB = new IDBFactory();
      return {
        first: indexedDBStores('minca-files', { indexedDB }),
        reopen: () => indexedDBStores('minca-files', { indexedDB }),
        teardown: () => undefined,
      };
    },
  },
];

const sample = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + 17) & 255);

describe.each(backends)('files over $name', (backend) => {
  it('adds a file, and reads it back after a restart', async () => {
    const { first, reopen, teardown } = backend.open();
    try {
      const node = await createNode({ stores: first });
      const space = (await node.spaces.create()).id;
      const bytes = sample(3 * CHUNK_BYTES + 1234);
      const ref = await node.records.addFile(space, bytes, { mime: 'application/octet-stream' });
      await node.records.put(space, 'app.doc', { ref });
      await node.close();
      const again = await createNode({ stores: reopen() });
      expect(await again.files.whole(space)).toEqual([ref.$file]);
      const back = await again.records.readFile(space, ref);
      expect(Buffer.from(back).equals(Buffer.from(bytes))).toBe(true);
      await again.close();
    } finally {
      teardown();
    }
  });
});
