/**
 * The part of a SQLite driver minca uses, as a structural type, and the bridging between the
 * drivers that satisfy it: `node:sqlite` `DatabaseSync`, `bun:sqlite` `Database` and
 * better-sqlite3 `Database`. Nothing here imports a driver.
 *
 * Differences bridged:
 * - Parameters are always positional `?`, passed as arguments (all three accept that; named
 *   parameters differ between them).
 * - A statement's `get` gives `undefined` for no row in node:sqlite and better-sqlite3, `null`
 *   in bun:sqlite: both mean absent.
 * - BLOBs come back as a `Buffer` (better-sqlite3) or a `Uint8Array` (node:sqlite, bun:sqlite):
 *   {@link readBytes} always copies into a plain `Uint8Array` the caller owns.
 * - Integers come back as `number`, or `bigint` where the connection reads safe integers:
 *   {@link readCount} takes both.
 * - Errors: better-sqlite3 and bun:sqlite name the result code in `code` ("SQLITE_NOTADB"),
 *   node:sqlite puts it in `errcode` (26) beside `code: "ERR_SQLITE_ERROR"`.
 */
import { MincaError } from '@minca/core';

/** A value bound to a `?` parameter. */
export type SqliteValue = string | number | bigint | Uint8Array | null;

/**
 * A prepared statement: what node:sqlite, bun:sqlite and better-sqlite3 statements share.
 * minca passes only {@link SqliteValue}s; the parameters are typed `unknown[]` so each driver's
 * own (narrower or generic) parameter types still fit.
 */
export interface SqliteStatement {
  /** Runs the statement with positional parameters; the result is not used. */
  run(...params: unknown[]): unknown;
  /** The first row as an object keyed by column name; `undefined` or `null` when none. */
  get(...params: unknown[]): unknown;
  /** Every row, as objects keyed by column name. */
  all(...params: unknown[]): unknown[];
}

/** A SQLite connection: node:sqlite `DatabaseSync`, bun:sqlite `Database` or better-sqlite3 `Database`. */
export interface SqliteDatabase {
  /** Compiles one SQL statement. */
  prepare(sql: string): SqliteStatement;
  /** Runs SQL that returns no rows. minca passes one statement at a time. */
  exec(sql: string): unknown;
}

/** A row as the drivers give it: an object (node:sqlite's has a null prototype). */
export type Row = Record<string, unknown>;

/** The first row of `statement`, or `undefined` (bun:sqlite answers `null`). */
export function getRow(statement: SqliteStatement, ...params: SqliteValue[]): Row | undefined {
  const row = statement.get(...params);
  return row === null || row === undefined ? undefined : (row as Row);
}

/**
 * A BLOB read from the database as a plain `Uint8Array` of its own: never the driver's Buffer,
 * so the caller may keep or change it. Anything else in the column is a corrupt database.
 */
export function readBytes(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  throw new MincaError('corrupt', `${what} is not a BLOB in the database (${typeof value})`);
}

/** An integer read from the database, as a number. */
export function readCount(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  throw new MincaError('corrupt', `${what} is not an integer in the database (${typeof value})`);
}

/**
 * Bytes to bind: the view itself when it spans its whole buffer, else a copy of just its bytes,
 * so a driver that binds a view's whole buffer still stores only the view.
 */
export function bindBytes(value: Uint8Array): Uint8Array {
  return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
    ? value
    : value.slice();
}

/** SQLite primary result codes minca tells apart. */
const SQLITE_READONLY = 8;
const SQLITE_CORRUPT = 11;
const SQLITE_TOOBIG = 18;
const SQLITE_NOTADB = 26;

function resultCode(error: { code?: unknown; errcode?: unknown; errno?: unknown }): number {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code.startsWith('SQLITE_CORRUPT')) return SQLITE_CORRUPT;
  if (code.startsWith('SQLITE_NOTADB')) return SQLITE_NOTADB;
  if (code.startsWith('SQLITE_TOOBIG')) return SQLITE_TOOBIG;
  if (code.startsWith('SQLITE_READONLY')) return SQLITE_READONLY;
  // node:sqlite's errcode and bun:sqlite's errno may be extended codes: the low byte is primary.
  for (const n of [error.errcode, error.errno]) if (typeof n === 'number' && n > 0) return n & 0xff;
  return 0;
}

/** Whether a driver's error says the connection or its file may not be written. */
export function isReadOnly(error: unknown): boolean {
  return typeof error === 'object' && error !== null && resultCode(error) === SQLITE_READONLY;
}

/**
 * The {@link MincaError} for an error a driver threw while `doing` something: `corrupt` for a
 * damaged file or one that is not a database, `too_large` past SQLite's length limit, `closed`
 * when the connection was closed, `storage` otherwise. The driver's error is the cause.
 */
export function driverError(error: unknown, doing: string): MincaError {
  if (error instanceof MincaError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const code = typeof error === 'object' && error !== null ? resultCode(error) : 0;
  if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) {
    const message = `${doing}: the SQLite file is damaged or not a database (${detail})`;
    return new MincaError('corrupt', message, { cause: error });
  }
  if (code === SQLITE_TOOBIG) {
    return new MincaError('too_large', `${doing}: over SQLite's length limit (${detail})`, {
      cause: error,
    });
  }
  if (/\bnot open\b/i.test(detail)) {
    return new MincaError('closed', `${doing}: the SQLite connection is closed`, { cause: error });
  }
  return new MincaError('storage', `${doing}: ${detail}`, { cause: error });
}
