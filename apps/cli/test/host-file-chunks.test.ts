// A host keeps file chunks as files beside its SQLite database, under a budget, with its bucket
// holding them all: a real SQLite database, a real folder, and a real S3-compatible server
// (s3rver on 127.0.0.1), with the host's node run in this process.
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore, FileRef } from '@minca/core';
import { type RunningS3rver, startS3rver } from '@minca/s3/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHUNKS_DIR, hostKey, openHostNode } from '../src/host/host-node.ts';
import { until } from './minca.ts';

const MiB = 1024 * 1024;
const bytesOf = (n: number, seed: number) => new Uint8Array(n).map((_, i) => (i * seed + 7) & 0xff);
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

let s3: RunningS3rver;
const dirs: string[] = [];
beforeAll(async () => {
  s3 = await startS3rver({ bucket: 'minca-chunks' });
});
afterAll(async () => {
  await s3?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'minca-chunks-'));
  dirs.push(dir);
  return dir;
}

/**
 * A bucket whose writes wait until `open()`: what it holds is what the test let through, not
 * what a mirror's timer (5 s after a change) pushed meanwhile on a slow machine.
 */
function gated(store: BlobStore): { store: BlobStore; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open,
    store: {
      get: (key) => store.get(key),
      put: async (key, bytes) => {
        await opened;
        await store.put(key, bytes);
      },
      delete: (key) => store.delete(key),
      list: (prefix) => store.list(prefix),
      ...(store.getRange ? { getRange: store.getRange.bind(store) } : {}),
      ...(store.listFolders ? { listFolders: store.listFolders.bind(store) } : {}),
    },
  };
}

/** The chunk files of a file under `<data>/chunks/<space>/<id>/`, by number. */
async function chunkFiles(data: string, space: string, id: string): Promise<number[]> {
  const names = await readdir(join(data, CHUNKS_DIR, space, id)).catch(() => [] as string[]);
  return names
    .filter((n) => /^\d+\.minca$/.test(n))
    .map((n) => Number.parseInt(n, 10))
    .sort((a, b) => a - b);
}
const chunkPath = (data: string, space: string, id: string, n: number) =>
  join(data, CHUNKS_DIR, space, id, `${n}.minca`);

/** The largest `f/<id>/<n>` value the database holds: a marker (1 byte) when chunks are beside it. */
function largestChunkEntry(data: string): number {
  const db = new Database(join(data, 'host.sqlite'), { readonly: true });
  try {
    const row = db
      .prepare(
        `SELECT coalesce(max(length(value)), 0) AS n FROM minca_entries
         WHERE key >= 'f/' AND key < 'f0' AND key GLOB 'f/*/[0-9]*'`,
      )
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

describe('file chunks beside the database', () => {
  it('keeps chunks as files, drops those the bucket holds past the budget, and reads them back checked', async () => {
    const data = await dataDir();
    const mirror = gated(s3.store({ prefix: 'a' }));
    const host = await openHostNode(data, {
      holding: 'all',
      mirror: mirror.store,
      chunkBudget: 2 * MiB,
    });
    try {
      const { node } = host;
      const space = (await node.spaces.create()).id;
      const bytes = bytesOf(3 * MiB + 5, 3); // 13 chunks
      const ref = await node.records.addFile(space, bytes, { name: 'big.bin' });
      await node.records.put(space, 'app.doc', { doc: ref });
      expect(await chunkFiles(data, space, ref.$file)).toHaveLength(13);
      expect(largestChunkEntry(data)).toBe(1); // markers only: no chunk inside SQLite

      // Over budget, but the bucket doesn't hold it yet (it takes no writes): nothing leaves the disk.
      const other = await node.records.addFile(space, bytesOf(MiB, 5)); // not named: kept 24 h
      await new Promise((r) => setTimeout(r, 300));
      expect(await chunkFiles(data, space, ref.$file)).toHaveLength(13);

      // Pushed (chunks, then list), the next write over budget drops it from disk: only
      // the unnamed file, which is in no bucket, stays.
      mirror.open();
      await node.spaces.syncMirrors(space);
      await node.spaces.syncMirrors(space);
      const bucket = s3.store({ prefix: 'a' });
      expect(
        (await bucket.list(`files/${space}/`)).some((k) => k.endsWith(`${ref.$file}/list`)),
      ).toBe(true);
      await node.records.addFile(space, bytesOf(300 * 1024, 9));
      await until(
        async () => (await chunkFiles(data, space, ref.$file)).length === 0,
        'the file in the bucket to leave the disk',
      );
      expect(await chunkFiles(data, space, other.$file)).toHaveLength(4);
      expect(await node.files.whole(space)).toContain(ref.$file); // still held, in the bucket

      // Read back from the bucket, every chunk checked.
      expect(same(await node.records.readFile(space, ref), bytes)).toBe(true);
    } finally {
      await host.close();
    }
  });

  it('never serves a chunk file altered or cut short on disk: it reads the bucket again, or nothing', async () => {
    const data = await dataDir();
    const host = await openHostNode(data, { holding: 'all', mirror: s3.store({ prefix: 'b' }) });
    let ref: FileRef;
    let space: string;
    const bytes = bytesOf(600 * 1024, 11); // 3 chunks
    try {
      space = (await host.node.spaces.create()).id;
      ref = await host.node.records.addFile(space, bytes);
      await host.node.records.put(space, 'app.doc', { doc: ref });
      await host.node.spaces.syncMirrors(space);
      await host.node.spaces.syncMirrors(space);
    } finally {
      await host.close();
    }
    // Altered and truncated while the host was down.
    const altered = await readFile(chunkPath(data, space, ref.$file, 0));
    altered[100]! ^= 0xff;
    await writeFile(chunkPath(data, space, ref.$file, 0), altered);
    await truncate(chunkPath(data, space, ref.$file, 1), 1000);

    const again = await openHostNode(data, { holding: 'all', mirror: s3.store({ prefix: 'b' }) });
    try {
      await again.node.spaces.open(space);
      expect(same(await again.node.records.readFile(space, ref), bytes)).toBe(true);
      // Repaired on disk from the bucket.
      expect((await stat(chunkPath(data, space, ref.$file, 1))).size).toBe(256 * 1024 + 40);

      // Damaged on disk and gone from the bucket: not served, and no longer counted as held.
      const bucket = s3.store({ prefix: 'b' });
      for (const key of await bucket.list(`files/${space}/`)) await bucket.delete(key);
      await writeFile(chunkPath(data, space, ref.$file, 2), new Uint8Array(40 + 88_000 - 1));
      expect(await again.node.files.chunk(space, ref.$file, 2)).toBeUndefined();
      expect(await again.node.files.whole(space)).not.toContain(ref.$file);
    } finally {
      await again.close();
    }
  });

  it('reads chunks a store kept inside the database, and moves each beside it once read', async () => {
    const data = await dataDir();
    // An older host: chunks as entries of the space's store.
    const { createNode } = await import('@minca/core');
    const { sqliteStores } = await import('@minca/sqlite');
    const db = new Database(join(data, 'host.sqlite'));
    const key = await hostKey(data);
    const old = await createNode({ stores: sqliteStores(db), key, fetchFiles: 'all' });
    const space = (await old.spaces.create()).id;
    const bytes = bytesOf(400 * 1024, 13); // 2 chunks
    const ref = await old.records.addFile(space, bytes);
    await old.records.put(space, 'app.doc', { doc: ref });
    await old.close();
    db.close();
    expect(largestChunkEntry(data)).toBe(256 * 1024 + 40);

    const host = await openHostNode(data, { holding: 'all' });
    try {
      await host.node.spaces.open(space);
      expect(same(await host.node.records.readFile(space, ref), bytes)).toBe(true);
      expect(await chunkFiles(data, space, ref.$file)).toEqual([0, 1]);
      expect(largestChunkEntry(data)).toBe(1);
      expect(same(await host.node.records.readFile(space, ref), bytes)).toBe(true);
    } finally {
      await host.close();
    }
  });
});
