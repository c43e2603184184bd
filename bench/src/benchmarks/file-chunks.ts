// Files beside the database. First a 50 MiB file's 200 sealed chunks read back from the
// directory a host keeps them in (createDirectoryBlobStore, one file per chunk) and from SQLite
// (entries of a store, as before), each beside the raw read of the same bytes (readFileSync of
// each file, and fs.promises.readFile; better-sqlite3's SELECT of each row) in the same run;
// then readFile of the file by a node over SQLite, with its chunks beside it and inside it.
// Then the files nothing names in a
// store of many versions: SQLite's one statement, beside the same answer from three prefix
// listings, and the drop it leads to. Files sit in the OS page cache: this is the read path.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlobStore, createNode, type StorageAdapter, unnamedFiles } from '@minca/core';
import { createDirectoryBlobStore, keyPath } from '@minca/folder';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { type Benchmark, type Figure, medianMs } from '../harness.js';

const MIB = 1024 * 1024;
const FILE_MIB = Number(process.env.MINCA_BENCH_CHUNK_FILE_MIB ?? 50);
const CHUNK = 256 * 1024 + 40;
const CHUNKS = Math.ceil((FILE_MIB * MIB) / (256 * 1024));
const RUNS = 5;
/** Versions naming files in the store the one query runs over, and files they name. */
const VERSIONS = Number(process.env.MINCA_BENCH_NAMED_VERSIONS ?? 100_000);
const FILES = VERSIONS / 10;
const SPACE = 'a'.repeat(26);
const hex = (n: number, salt: number) =>
  (salt.toString(16).padStart(8, '0') + n.toString(16).padStart(8, '0')).repeat(4);

const chunks = Array.from({ length: CHUNKS }, (_, n) =>
  new Uint8Array(CHUNK).map((_, i) => (i * 31 + n) & 0xff),
);
const FILE_ID = hex(1, 1);

async function readAll(read: (n: number) => Promise<Uint8Array | null | undefined>) {
  let bytes = 0;
  for (let n = 0; n < CHUNKS; n++) bytes += (await read(n))?.length ?? 0;
  if (bytes !== CHUNKS * CHUNK) throw new Error(`read ${bytes} bytes, not ${CHUNKS * CHUNK}`);
}

async function storageReads(dir: string): Promise<Figure[]> {
  const folder = join(dir, 'chunks');
  const blobs: BlobStore = createDirectoryBlobStore(folder, { sync: false });
  const key = (n: number) => `${SPACE}/${FILE_ID}/${n}`;
  for (let n = 0; n < CHUNKS; n++) await blobs.put(key(n), chunks[n]!);
  const file = join(dir, 'chunks.sqlite');
  const db = new Database(file);
  const adapter = await sqliteStores(db).open(`spaces/${SPACE}`);
  await adapter.batch(chunks.map((value, n) => ({ key: `f/${FILE_ID}/${n}`, value })));
  const paths = Array.from({ length: CHUNKS }, (_, n) => join(folder, ...keyPath(key(n))));
  const select = db.prepare('SELECT value FROM minca_entries WHERE store = 1 AND key = ?');

  const dirMs = await medianMs(RUNS, () => readAll((n) => blobs.get(key(n))));
  const rawDirMs = await medianMs(RUNS, () => readAll(async (n) => readFileSync(paths[n]!)));
  const asyncDirMs = await medianMs(RUNS, () => readAll((n) => readFile(paths[n]!)));
  const sqlMs = await medianMs(RUNS, () => readAll((n) => adapter.get(`f/${FILE_ID}/${n}`)));
  const rawSqlMs = await medianMs(RUNS, () =>
    readAll(async (n) => (select.get(`f/${FILE_ID}/${n}`) as { value: Uint8Array }).value),
  );
  db.close();
  const mbps = (ms: number) => (CHUNKS * CHUNK) / 1e6 / (ms / 1000);
  return [
    {
      name: `${FILE_MIB} MiB of chunks from the directory`,
      value: dirMs,
      unit: 'ms',
      note: `${mbps(dirMs).toFixed(0)} MB/s; raw readFileSync ${rawDirMs.toFixed(0)} ms, fs.promises.readFile ${asyncDirMs.toFixed(0)} ms`,
    },
    {
      name: `${FILE_MIB} MiB of chunks from SQLite`,
      value: sqlMs,
      unit: 'ms',
      note: `${mbps(sqlMs).toFixed(0)} MB/s; ${(sqlMs / rawSqlMs).toFixed(2)}× raw SELECT (${rawSqlMs.toFixed(0)} ms); directory ${(sqlMs / dirMs).toFixed(2)}× faster`,
    },
  ];
}

/** readFile of the file by a node over SQLite, its chunks beside it or inside it. */
async function nodeRead(dir: string, beside: boolean): Promise<number> {
  const db = new Database(join(dir, `node-${beside}.sqlite`));
  const node = await createNode({
    stores: sqliteStores(db),
    fetchFiles: 'all',
    ...(beside
      ? { fileChunks: { store: createDirectoryBlobStore(join(dir, `node-chunks`)) } }
      : {}),
  });
  try {
    const space = (await node.spaces.create()).id;
    const bytes = new Uint8Array(FILE_MIB * MIB).map((_, i) => i & 0xff);
    const ref = await node.records.addFile(space, bytes);
    await node.records.put(space, 'app.file', { ref });
    return await medianMs(RUNS, async () => {
      if ((await node.records.readFile(space, ref)).length !== bytes.length)
        throw new Error('readFile gave the wrong size');
    });
  } finally {
    await node.close();
    db.close();
  }
}

/**
 * A store where FILES files are named by VERSIONS versions, ten each: one head per file for
 * nine files in ten (its x/ there), the rest named only by versions since superseded.
 */
async function namedStore(adapter: StorageAdapter): Promise<number> {
  const one = new Uint8Array([1]);
  let unnamed = 0;
  for (let f = 0; f < FILES; f++) {
    const file = hex(f, 2);
    const writes = [{ key: `f/${file}/list`, value: one }];
    const head = f % 10 !== 0;
    if (!head) unnamed++;
    for (let v = 0; v < 10; v++) {
      const rest = `app.post/r${f}/${hex(f * 10 + v, 3)}`;
      writes.push({ key: `y/${file}/${rest}`, value: one });
      if (head && v === 9) writes.push({ key: `x/${rest}`, value: one });
    }
    await adapter.batch(writes);
  }
  return unnamed;
}

async function oneQuery(dir: string): Promise<Figure[]> {
  const db = new Database(join(dir, 'named.sqlite'));
  const adapter = await sqliteStores(db).open(`spaces/${SPACE}`);
  const expected = await namedStore(adapter);
  const listings: StorageAdapter = {
    get: (k) => adapter.get(k),
    list: (p) => adapter.list(p),
    batch: (w) => adapter.batch(w),
    getVersion: (id) => adapter.getVersion(id),
    putVersion: (id, b) => adapter.putVersion(id, b),
    deleteVersion: (id) => adapter.deleteVersion(id),
  };
  let found = 0;
  const queryMs = await medianMs(RUNS, async () => {
    found = (await unnamedFiles(adapter)).length;
  });
  if (found !== expected) throw new Error(`found ${found} unnamed files, not ${expected}`);
  const listMs = await medianMs(RUNS, () => unnamedFiles(listings));
  // The drop: the query, then one batch deleting each file's list and its dead y/ entries.
  const start = performance.now();
  const ids = await unnamedFiles(adapter);
  const writes = [];
  for (const id of ids) {
    writes.push({ key: `f/${id}/list`, value: undefined });
    for (const key of await adapter.list(`y/${id}/`)) writes.push({ key, value: undefined });
  }
  await adapter.batch(writes);
  const dropMs = performance.now() - start;
  if ((await unnamedFiles(adapter)).length !== 0) throw new Error('the drop left files');
  db.close();
  return [
    {
      name: `files nothing names, ${VERSIONS.toLocaleString('en-US')} versions (SQLite, one statement)`,
      value: queryMs,
      unit: 'ms',
      note: `${expected} of ${FILES} files; ${(listMs / queryMs).toFixed(1)}× faster than three listings (${listMs.toFixed(0)} ms)`,
    },
    {
      name: `dropping them (query + one batch)`,
      value: dropMs,
      unit: 'ms',
      note: `${ids.length} files, ${writes.length} entries deleted`,
    },
  ];
}

const bench: Benchmark = {
  name: 'file-chunks',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'minca-bench-chunks-'));
    try {
      const figures = await storageReads(dir);
      const beside = await nodeRead(dir, true);
      const inside = await nodeRead(dir, false);
      figures.push({
        name: `readFile of ${FILE_MIB} MiB, chunks beside SQLite`,
        value: beside,
        unit: 'ms',
        note: `inside SQLite ${inside.toFixed(0)} ms (${(inside / beside).toFixed(2)}×)`,
      });
      figures.push(...(await oneQuery(dir)));
      return figures;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
