// A database written by schema 1 (versions in a WITHOUT ROWID table keyed by id), schema 2
// (a rowid table with a unique (store, id) index) or schema 3 (the same with the prefix of ids,
// one index of (store, prefix)) is moved to schema 4 when a writable connection opens it, and
// read as it is by a read-only one.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { idPrefix, SCHEMA_VERSION, sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

const COMMON = [
  `CREATE TABLE minca_meta (name TEXT PRIMARY KEY, value ANY) STRICT, WITHOUT ROWID`,
  `CREATE TABLE minca_stores (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE) STRICT`,
  `CREATE TABLE minca_entries (store INTEGER NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (store, key)) STRICT, WITHOUT ROWID`,
];

/** Each older schema's versions table, as that version of the package created it. */
const VERSIONS = {
  1: [
    `CREATE TABLE minca_versions (store INTEGER NOT NULL, id TEXT NOT NULL, body BLOB NOT NULL,
      PRIMARY KEY (store, id)) STRICT, WITHOUT ROWID`,
  ],
  2: [
    `CREATE TABLE minca_versions (n INTEGER PRIMARY KEY, store INTEGER NOT NULL,
      id TEXT NOT NULL, body BLOB NOT NULL) STRICT`,
    `CREATE UNIQUE INDEX minca_versions_id ON minca_versions (store, id)`,
  ],
  3: [
    `CREATE TABLE minca_versions (n INTEGER PRIMARY KEY, store INTEGER NOT NULL,
      prefix INTEGER NOT NULL, id TEXT NOT NULL, body BLOB NOT NULL) STRICT`,
    `CREATE INDEX minca_versions_prefix ON minca_versions (store, prefix)`,
  ],
} as const;

/**
 * Version ids: even ones hashes (prefixes all differ, so moving must compute each one as the
 * code does), odd ones zeros but for their end (they share one prefix, so lookups must compare
 * whole ids).
 */
const ID = (n: number) =>
  n % 2 === 0
    ? createHash('sha256').update(String(n)).digest('hex')
    : n.toString(16).padStart(64, '0');
const body = (n: number) => new Uint8Array(300).fill(n);

/** A file in `schema` with `count` versions and one entry in store `spaces/a`. */
function older(dir: TempDir, schema: 1 | 2 | 3, count: number): string {
  const db = dir.open('old.sqlite');
  for (const sql of [...COMMON, ...VERSIONS[schema]]) db.exec(sql);
  db.prepare(`INSERT INTO minca_meta (name, value) VALUES ('schema', ?)`).run(schema);
  db.prepare(`INSERT INTO minca_stores (id, path) VALUES (1, 'spaces/a')`).run();
  db.prepare(`INSERT INTO minca_entries VALUES (1, 'k', ?)`).run(new Uint8Array([7]));
  const put =
    schema === 3
      ? db.prepare('INSERT INTO minca_versions (store, prefix, id, body) VALUES (1, ?, ?, ?)')
      : db.prepare('INSERT INTO minca_versions (store, id, body) VALUES (1, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < count; i++)
      if (schema === 3) put.run(idPrefix(ID(i)), ID(i), body(i % 251));
      else put.run(ID(i), body(i % 251));
  })();
  db.close();
  return dir.file('old.sqlite');
}

const schemaOf = (db: Database.Database) =>
  db.prepare(`SELECT value FROM minca_meta WHERE name = 'schema'`).get();
const rows = (db: Database.Database) =>
  db.prepare('SELECT count(*) AS n FROM minca_versions').get();

let dir: TempDir | undefined;
afterEach(() => {
  dir?.dispose();
  dir = undefined;
});

describe.each([1, 2, 3] as const)('a schema-%i database', (schema) => {
  it('is moved to schema 4 on open, every version and entry kept', async () => {
    expect(SCHEMA_VERSION).toBe(4);
    dir = new TempDir();
    older(dir, schema, 1000);
    const db = dir.open('old.sqlite');
    const stores = sqliteStores(db);
    const a = await stores.open('spaces/a');
    expect(schemaOf(db)).toEqual({ value: 4 });
    // Every id is settled, in order.
    expect(db.prepare(`SELECT value FROM minca_meta WHERE name = 'settled'`).get()).toEqual({
      value: 1000,
    });
    expect(db.prepare('SELECT count(*) AS n FROM minca_version_ids').get()).toEqual({ n: 1000 });
    // 'k' and its one byte, and the bodies.
    expect(await stores.size('spaces/a')).toBe(1 + 1 + 1000 * 300);
    expect(await a.get('k')).toEqual(new Uint8Array([7]));
    for (let i = 0; i < 1000; i++) expect(await a.getVersion(ID(i))).toEqual(body(i % 251));
    expect(rows(db)).toEqual({ n: 1000 });
    // An id unlike any held, with a held one's prefix, is not that version.
    expect(await a.getVersion(`${ID(2).slice(0, 11)}${'f'.repeat(53)}`)).toBeUndefined();
    // A put replaces the body. The moved ids are settled, so the old row goes when the recent
    // ids next move (version-rows.ts); reads take the new one meanwhile.
    for (const i of [3, 4]) {
      await a.putVersion(ID(i), body(9));
      expect(await a.getVersion(ID(i))).toEqual(body(9));
    }
    expect(rows(db)).toEqual({ n: 1002 });
    await a.deleteVersion(ID(5));
    expect(await a.getVersion(ID(5))).toBeUndefined();
    expect(await a.getVersion(ID(7))).toEqual(body(7));
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'minca_version%' ORDER BY name`)
      .all();
    expect(tables).toEqual([{ name: 'minca_version_ids' }, { name: 'minca_versions' }]);
    // Opened again, nothing moves twice.
    await sqliteStores(db).open('spaces/a');
    expect(schemaOf(db)).toEqual({ value: 4 });
    expect(rows(db)).toEqual({ n: 1001 });
  });

  it('is read as it is, unchanged, through a read-only connection', async () => {
    dir = new TempDir();
    const file = older(dir, schema, 10);
    const db = new Database(file, { readonly: true });
    try {
      const stores = sqliteStores(db, { configure: false });
      const a = await stores.open('spaces/a');
      for (const i of [3, 4]) expect(await a.getVersion(ID(i))).toEqual(body(i));
      expect(await stores.size('spaces/a')).toBe(1 + 1 + 10 * 300);
      expect(await a.get('k')).toEqual(new Uint8Array([7]));
      await expect(a.putVersion(ID(99), body(1))).rejects.toMatchObject({ code: 'storage' });
      await expect(a.deleteVersion(ID(3))).rejects.toMatchObject({ code: 'storage' });
      expect(schemaOf(db)).toEqual({ value: schema });
    } finally {
      db.close();
    }
  });
});
