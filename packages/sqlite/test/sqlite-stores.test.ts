import { LruBodyCache } from '@minca/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SQLITE_BODY_CACHE, sqliteStores } from '../src/index.ts';
import { SQL } from '../src/queries.ts';
import { idPrefix } from '../src/schema.ts';
import { VERSION_SQL } from '../src/version-rows.ts';
import { TempDir } from './temp-db.ts';

const ID = (n: number) => n.toString(16).padStart(64, '0');
const bytes = (...values: number[]) => new Uint8Array(values);

let dir: TempDir;
afterEach(() => dir?.dispose());
function setup() {
  dir = new TempDir();
  const db = dir.open();
  return { db, stores: sqliteStores(db) };
}

describe('sqliteStores', () => {
  it('returns plain Uint8Arrays, not the driver’s Buffers', async () => {
    const { stores } = setup();
    const a = await stores.open('spaces/plain');
    await a.commit!({
      versions: [[ID(1), bytes(1, 2)]],
      entries: [{ key: 'k', value: bytes(3) }],
      deleteVersions: [],
    });
    const read = [
      await a.get('k'),
      await a.getVersion(ID(1)),
      (await a.getVersions!([ID(1)]))[0],
      (await a.entries!(''))[0]![1],
    ];
    for (const value of read) expect(Object.getPrototypeOf(value)).toBe(Uint8Array.prototype);
  });

  it('keeps nothing between calls: a row written beside it is seen at once', async () => {
    const { db, stores } = setup();
    const a = await stores.open('spaces/live');
    expect(await a.get('k')).toBeUndefined();
    const { id } = db.prepare('SELECT id FROM minca_stores WHERE path = ?').get('spaces/live') as {
      id: number;
    };
    db.prepare('INSERT INTO minca_entries VALUES (?, ?, ?)').run(id, 'k', bytes(9));
    db.prepare(VERSION_SQL.insert).run(id, idPrefix(ID(2)), ID(2), bytes(8));
    db.prepare(VERSION_SQL.addRecent).run(id, idPrefix(ID(2)));
    expect(await a.get('k')).toEqual(bytes(9));
    expect(await a.list('')).toEqual(['k']);
    expect(await a.getVersion(ID(2))).toEqual(bytes(8));
  });

  it('shares one body cache of 4000 across the factory’s stores', async () => {
    const { stores } = setup();
    expect(stores.bodyCache).toBeInstanceOf(LruBodyCache);
    expect((stores.bodyCache as LruBodyCache).capacity).toBe(SQLITE_BODY_CACHE);
    expect(SQLITE_BODY_CACHE).toBe(4000);
  });

  it('size counts keys as UTF-8, values and bodies, per store', async () => {
    const { stores } = setup();
    const a = await stores.open('spaces/a');
    const b = await stores.open('spaces/b');
    expect(await stores.size('spaces/a')).toBe(0);
    expect(await stores.size('spaces/never-opened')).toBe(0);
    await a.batch([
      { key: 'é😀', value: new Uint8Array(10) }, // 2 + 4 key bytes
      { key: 'k', value: new Uint8Array(0) },
    ]);
    await a.putVersion(ID(3), new Uint8Array(100));
    await b.batch([{ key: 'other', value: new Uint8Array(1000) }]);
    expect(await stores.size('spaces/a')).toBe(6 + 10 + 1 + 100);
    await a.batch([{ key: 'é😀', value: undefined }]);
    await a.deleteVersion(ID(3));
    expect(await stores.size('spaces/a')).toBe(1);
    expect(await stores.size('spaces/b')).toBe(1005);
    await expect(stores.size('a b')).rejects.toMatchObject({ code: 'invalid_name' });
  });

  it('closing a store or the factory leaves the connection open', async () => {
    const { db, stores } = setup();
    const a = await stores.open('spaces/a');
    const b = await stores.open('spaces/b');
    await a.batch([{ key: 'k', value: bytes(1) }]);
    await a.close!();
    await expect(a.get('k')).rejects.toMatchObject({ code: 'closed' });
    await expect(a.batch([])).rejects.toMatchObject({ code: 'closed' });
    await b.batch([{ key: 'k', value: bytes(2) }]);
    await stores.close!();
    await expect(stores.open('spaces/a')).rejects.toMatchObject({ code: 'closed' });
    expect(db.open).toBe(true);
    expect(await b.get('k')).toEqual(bytes(2));
    // And a new factory over the same connection finds everything.
    expect(await (await sqliteStores(db).open('spaces/a')).get('k')).toEqual(bytes(1));
  });

  it('a store over a connection closed under it fails with closed', async () => {
    const { db, stores } = setup();
    const a = await stores.open('spaces/a');
    db.close();
    await expect(a.get('k')).rejects.toMatchObject({ code: 'closed' });
  });

  it('refuses bad paths with invalid_name and misused arguments with TypeError', async () => {
    const { stores } = setup();
    for (const path of ['', '/a', 'a/', 'a//b', 'a b', '..x/é']) {
      await expect(stores.open(path), path).rejects.toMatchObject({ code: 'invalid_name' });
    }
    const a = await stores.open('spaces/a');
    await expect(a.getVersion('ABC')).rejects.toThrow(TypeError);
    await expect(a.putVersion(ID(1), 'x' as unknown as Uint8Array)).rejects.toThrow(TypeError);
    await expect(a.get(1 as unknown as string)).rejects.toThrow(TypeError);
    expect(() => sqliteStores({} as never)).toThrow(TypeError);
    expect(() => sqliteStores(dir.open('other.sqlite'), { synchronous: 'off' as never })).toThrow(
      RangeError,
    );
  });

  it('a write SQLite refuses midway rolls back whole, with a storage error', async () => {
    const { db, stores } = setup();
    const a = await stores.open('spaces/a');
    await a.batch([{ key: 'old', value: bytes(1) }]);
    db.exec(`CREATE TRIGGER boom BEFORE INSERT ON minca_entries WHEN NEW.key = 'boom'
             BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END`);
    const write = [
      { key: 'new', value: bytes(2) },
      { key: 'old', value: undefined },
      { key: 'boom', value: bytes(3) },
    ];
    await expect(a.batch(write)).rejects.toMatchObject({ code: 'storage' });
    await expect(
      a.commit!({ versions: [[ID(5), bytes(5)]], entries: write, deleteVersions: [] }),
    ).rejects.toMatchObject({ code: 'storage' });
    expect(await a.list('')).toEqual(['old']);
    expect(await a.getVersion(ID(5))).toBeUndefined();
    expect(db.inTransaction).toBe(false);
    // The store still writes afterwards.
    await a.batch([{ key: 'after', value: bytes(4) }]);
    expect(await a.list('')).toEqual(['after', 'old']);
  });

  it('a write inside the app’s own transaction nests in it', async () => {
    const { db, stores } = setup();
    const a = await stores.open('spaces/a');
    db.exec('BEGIN');
    await a.batch([{ key: 'k', value: bytes(1) }]);
    expect(db.inTransaction).toBe(true);
    db.exec('ROLLBACK');
    expect(await a.get('k')).toBeUndefined();
  });

  it('sets WAL on a file, or leaves the connection alone with configure: false', () => {
    dir = new TempDir();
    const tuned = dir.open('tuned.sqlite');
    sqliteStores(tuned);
    expect(tuned.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(tuned.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(tuned.pragma('wal_autocheckpoint', { simple: true })).toBe(4096);
    expect(tuned.pragma('cache_size', { simple: true })).toBe(-4096); // 4 MiB
    const full = dir.open('full.sqlite');
    sqliteStores(full, { synchronous: 'full' });
    expect(full.pragma('synchronous', { simple: true })).toBe(2);
    const plain = dir.open('plain.sqlite');
    sqliteStores(plain, { configure: false });
    expect(plain.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(plain.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(plain.pragma('cache_size', { simple: true })).toBe(-16000); // better-sqlite3's own
  });

  it('makes a new database in pages of 8 KiB, and keeps the size of one that has pages or was given one', async () => {
    dir = new TempDir();
    const pageSize = (db: ReturnType<TempDir['open']>) => db.pragma('page_size', { simple: true });
    const fresh = dir.open('fresh.sqlite');
    const stores = sqliteStores(fresh);
    await (await stores.open('spaces/a')).batch([{ key: 'k', value: bytes(1) }]);
    expect(pageSize(fresh)).toBe(8192);
    fresh.close();
    expect(pageSize(dir.open('fresh.sqlite'))).toBe(8192); // the file's, not the connection's

    // Made before minca saw it, in SQLite's 4 KiB: it stays so (a size is set only once).
    const older = dir.open('older.sqlite');
    older.exec('CREATE TABLE app_own (x)');
    sqliteStores(older);
    expect(pageSize(older)).toBe(4096);

    // An app that chose a size for its new database keeps it.
    const chosen = dir.open('chosen.sqlite');
    chosen.pragma('page_size = 16384');
    sqliteStores(chosen);
    expect(pageSize(chosen)).toBe(16384);

    const plain = dir.open('plain-new.sqlite');
    sqliteStores(plain, { configure: false });
    expect(pageSize(plain)).toBe(4096);
  });

  const planOf = (db: ReturnType<typeof setup>['db'], sql: string, ...params: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map(
      (row) => row.detail,
    );

  it('lists a prefix through the primary key, not a scan', () => {
    const { db } = setup();
    const plans = (
      [
        [SQL.keys.between, 1, 'a', 'b'],
        [SQL.keys.from, 1, 'a'],
        [SQL.entries.between, 1, 'a', 'b'],
        [SQL.getEntry, 1, 'a'],
      ] as const
    ).map(([sql, ...params]) => planOf(db, sql, ...params).join('; '));
    for (const plan of plans) {
      expect(plan).toMatch(/^SEARCH minca_entries USING PRIMARY KEY \(store=\? AND/);
      expect(plan).not.toMatch(/TEMP B-TREE/); // ORDER BY key comes from the index
    }
  });

  it('finds a version through its recent or settled id, reading only rows it finds', () => {
    const { db } = setup();
    const p = idPrefix(ID(1));
    for (const [sql, ...params] of [
      [VERSION_SQL.get, 1, p, 1, p, ID(1)],
      [VERSION_SQL.find, 1, p, 1, p, ID(1)],
      [VERSION_SQL.deleteRow, 7],
      [VERSION_SQL.deleteRecent, 1, p, 7],
      [VERSION_SQL.deleteSettled, 1, p, 7],
    ] as const) {
      const steps = planOf(db, sql, ...params).filter((d) => /^(SEARCH|SCAN)/.test(d));
      expect(steps.length).toBeGreaterThan(0);
      for (const step of steps)
        expect(step).toMatch(
          /^SEARCH minca_(versions USING INTEGER PRIMARY KEY \(rowid=\?\)|(recent|version)_ids USING PRIMARY KEY \(store=\? AND prefix=\?)/,
        );
    }
    // Settling reads the recent ids in the settled index's order: no sort.
    expect(planOf(db, VERSION_SQL.settle).join('; ')).not.toMatch(/TEMP B-TREE/);
    // A store's size reads its recent ids, and for each a search of the settled ones.
    expect(planOf(db, VERSION_SQL.replacedBytes, 1)).toEqual([
      'SEARCH r USING PRIMARY KEY (store=?)',
      'SEARCH s USING PRIMARY KEY (store=? AND prefix=?)',
      'SEARCH a USING INTEGER PRIMARY KEY (rowid=?)',
      'SEARCH b USING INTEGER PRIMARY KEY (rowid=?)',
    ]);
  });

  it('finds the files nothing names in one statement that reads only through the primary key', () => {
    const { db } = setup();
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${SQL.unnamedFiles}`).all(1) as Array<{ detail: string }>
    ).map((row) => row.detail);
    expect(plan.length).toBeGreaterThan(0);
    for (const step of plan.filter((d) => /^(SEARCH|SCAN)/.test(d)))
      expect(step).toMatch(
        /^SEARCH (minca_entries AS )?[fxy] (EXISTS )?USING PRIMARY KEY \(store=\? AND key/,
      );
    expect(plan.join('; ')).not.toMatch(/TEMP B-TREE/);
  });
});
