// A database written by schema 1 (versions in a WITHOUT ROWID table keyed by id) is moved to
// schema 2 when a writable connection opens it, and read as it is by a read-only one.
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

/** Schema 1's tables, as that version of the package created them. */
const SCHEMA_1 = [
  `CREATE TABLE minca_meta (name TEXT PRIMARY KEY, value ANY) STRICT, WITHOUT ROWID`,
  `CREATE TABLE minca_stores (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE) STRICT`,
  `CREATE TABLE minca_entries (store INTEGER NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (store, key)) STRICT, WITHOUT ROWID`,
  `CREATE TABLE minca_versions (store INTEGER NOT NULL, id TEXT NOT NULL, body BLOB NOT NULL,
    PRIMARY KEY (store, id)) STRICT, WITHOUT ROWID`,
  `INSERT INTO minca_meta (name, value) VALUES ('schema', 1)`,
];

const ID = (n: number) => n.toString(16).padStart(64, '0');
const body = (n: number) => new Uint8Array(300).fill(n);

/** A schema-1 file with `count` versions and one entry in store `spaces/a`. */
function schema1(dir: TempDir, count: number): string {
  const db = dir.open('old.sqlite');
  for (const sql of SCHEMA_1) db.exec(sql);
  db.prepare(`INSERT INTO minca_stores (id, path) VALUES (1, 'spaces/a')`).run();
  db.prepare(`INSERT INTO minca_entries VALUES (1, 'k', ?)`).run(new Uint8Array([7]));
  const put = db.prepare('INSERT INTO minca_versions VALUES (1, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < count; i++) put.run(ID(i), body(i % 251));
  })();
  db.close();
  return dir.file('old.sqlite');
}

const schemaOf = (db: Database.Database) =>
  db.prepare(`SELECT value FROM minca_meta WHERE name = 'schema'`).get();

let dir: TempDir | undefined;
afterEach(() => {
  dir?.dispose();
  dir = undefined;
});

describe('a schema-1 database', () => {
  it('is moved to schema 2 on open, every version and entry kept', async () => {
    expect(SCHEMA_VERSION).toBe(2);
    dir = new TempDir();
    schema1(dir, 1000);
    const db = dir.open('old.sqlite');
    const stores = sqliteStores(db);
    const a = await stores.open('spaces/a');
    expect(schemaOf(db)).toEqual({ value: 2 });
    // 'k' and its one byte, and the bodies.
    expect(await stores.size('spaces/a')).toBe(1 + 1 + 1000 * 300);
    expect(await a.get('k')).toEqual(new Uint8Array([7]));
    for (const i of [0, 1, 500, 999]) expect(await a.getVersion(ID(i))).toEqual(body(i % 251));
    expect(db.prepare('SELECT count(*) AS n FROM minca_versions').get()).toEqual({ n: 1000 });
    // Ids stay unique per store: the upsert replaces the body, it does not add a row.
    await a.putVersion(ID(3), body(9));
    expect(await a.getVersion(ID(3))).toEqual(body(9));
    expect(db.prepare('SELECT count(*) AS n FROM minca_versions').get()).toEqual({ n: 1000 });
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'minca_versions%' ORDER BY name`)
      .all();
    expect(tables).toEqual([{ name: 'minca_versions' }, { name: 'minca_versions_id' }]);
    // Opened again, nothing moves twice.
    await sqliteStores(db).open('spaces/a');
    expect(schemaOf(db)).toEqual({ value: 2 });
  });

  it('is read as it is, unchanged, through a read-only connection', async () => {
    dir = new TempDir();
    const file = schema1(dir, 10);
    const db = new Database(file, { readonly: true });
    try {
      const stores = sqliteStores(db, { configure: false });
      const a = await stores.open('spaces/a');
      expect(await a.getVersion(ID(4))).toEqual(body(4));
      expect(await stores.size('spaces/a')).toBe(1 + 1 + 10 * 300);
      expect(await a.get('k')).toEqual(new Uint8Array([7]));
      expect(schemaOf(db)).toEqual({ value: 1 });
    } finally {
      db.close();
    }
  });
});
