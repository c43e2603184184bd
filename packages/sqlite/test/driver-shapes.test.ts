/**
 * The driver differences sqliteStores bridges, over real SQLite: integers as bigint (a
 * better-sqlite3 setting), and a connection that answers as bun:sqlite and node:sqlite do —
 * `null` for no row, rows with a null prototype, BLOBs as plain Uint8Arrays. And the error
 * shapes each driver throws, mapped to MincaError codes.
 */
import { runStorageAdapterTests } from '@minca/core/testing';
import type Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { driverError } from '../src/driver.ts';
import { type SqliteDatabase, type SqliteStatement, sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

function plainRow(row: unknown): unknown {
  if (row === undefined) return null;
  const out = Object.create(null) as Record<string, unknown>;
  for (const [column, value] of Object.entries(row as object)) {
    out[column] = value instanceof Uint8Array ? new Uint8Array(value) : value;
  }
  return out;
}

/** better-sqlite3 answering in bun:sqlite's and node:sqlite's shapes. */
function otherShapes(db: Database.Database): SqliteDatabase {
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql): SqliteStatement {
      const statement = db.prepare(sql);
      return {
        run: (...params) => statement.run(...params),
        get: (...params) => plainRow(statement.get(...params)),
        all: (...params) => statement.all(...params).map(plainRow),
      };
    },
  };
}

runStorageAdapterTests('sqliteStores (null for no row, null-prototype rows)', async () => {
  const dir = new TempDir();
  let db = dir.open();
  return {
    factory: sqliteStores(otherShapes(db)),
    reopen: async () => {
      db.close();
      db = dir.open();
      return sqliteStores(otherShapes(db));
    },
    teardown: async () => dir.dispose(),
  };
});

let dir: TempDir | undefined;
afterEach(() => dir?.dispose());

it('takes integers read as bigint', async () => {
  dir = new TempDir();
  const db = dir.open();
  db.defaultSafeIntegers(true);
  const stores = sqliteStores(db);
  const a = await stores.open('spaces/a');
  const b = await stores.open('spaces/b');
  await a.batch([{ key: 'k', value: new Uint8Array(5) }]);
  await b.batch([{ key: 'k', value: new Uint8Array(7) }]);
  expect(await stores.size('spaces/a')).toBe(6);
  expect(await stores.size('spaces/b')).toBe(8);
  expect(await b.get('k')).toEqual(new Uint8Array(7));
});

it('maps each driver’s error shape to a MincaError code', () => {
  const shaped = (fields: object) => Object.assign(new Error('message from the driver'), fields);
  const cases: Array<[object, string]> = [
    [{ code: 'SQLITE_NOTADB' }, 'corrupt'], // better-sqlite3, bun:sqlite
    [{ code: 'SQLITE_CORRUPT_INDEX' }, 'corrupt'],
    [{ code: 'ERR_SQLITE_ERROR', errcode: 26 }, 'corrupt'], // node:sqlite
    [{ code: 'ERR_SQLITE_ERROR', errcode: 11 | (2 << 8) }, 'corrupt'], // an extended code
    [{ code: 'SQLITE_TOOBIG' }, 'too_large'],
    [{ code: 'ERR_SQLITE_ERROR', errcode: 18 }, 'too_large'],
    [{ code: 'SQLITE_BUSY' }, 'storage'],
    [{ code: 'ENOENT', errno: -2 }, 'storage'],
  ];
  for (const [fields, code] of cases) {
    const error = driverError(shaped(fields), 'reading');
    expect(error.code, JSON.stringify(fields)).toBe(code);
    expect(error.cause).toBeInstanceOf(Error);
  }
  expect(driverError(new TypeError('The database connection is not open'), 'x').code).toBe(
    'closed',
  );
  expect(driverError('a string', 'x').code).toBe('storage');
});
