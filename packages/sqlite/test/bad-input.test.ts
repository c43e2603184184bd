import { readFileSync, writeFileSync } from 'node:fs';
import { isMincaError } from '@minca/core';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

let dir: TempDir;
afterEach(() => dir?.dispose());

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** A database with one store of `count` entries of 300 bytes, closed, as bytes on disk. */
async function writtenFile(count: number): Promise<string> {
  const db = dir.open('source.sqlite');
  const a = await sqliteStores(db, { configure: false }).open('spaces/a');
  const writes = [];
  for (let i = 0; i < count; i++)
    writes.push({ key: `k/${i}`, value: new Uint8Array(300).fill(i) });
  await a.batch(writes);
  db.close();
  return dir.file('source.sqlite');
}

describe('a file that is not a healthy minca database', () => {
  it('not a database at all: corrupt on open', () => {
    dir = new TempDir();
    writeFileSync(dir.file(), 'hello, this is a text file and not SQLite\n'.repeat(100));
    const error = thrown(() => sqliteStores(dir.open()));
    expect(isMincaError(error, 'corrupt')).toBe(true);
    expect((error as Error).message).toMatch(/not a database/);
  });

  it('a damaged first page: corrupt on open', async () => {
    dir = new TempDir();
    const bytes = readFileSync(await writtenFile(2000));
    for (let i = 100; i < 4096; i++) bytes[i] = (i * 31) & 0xff;
    writeFileSync(dir.file(), bytes);
    expect(
      isMincaError(
        thrown(() => sqliteStores(dir.open())),
        'corrupt',
      ),
    ).toBe(true);
  });

  it('damaged data pages: each read that meets them rejects with corrupt', async () => {
    dir = new TempDir();
    const bytes = readFileSync(await writtenFile(2000));
    // Past the schema's root pages (1–6), in the entries' leaves.
    for (let i = 4096 * 20; i < 4096 * 30; i++) bytes[i] = (i * 31) & 0xff;
    writeFileSync(dir.file(), bytes);
    const a = await sqliteStores(dir.open()).open('spaces/a');
    await expect(a.list('')).rejects.toMatchObject({ code: 'corrupt' });
    await expect(a.entries!('k/')).rejects.toMatchObject({ code: 'corrupt' });
  });

  it('cut short: corrupt on open (the header counts more pages than the file has)', async () => {
    dir = new TempDir();
    const bytes = readFileSync(await writtenFile(2000));
    writeFileSync(dir.file(), bytes.subarray(0, 4096 * 12));
    expect(
      isMincaError(
        thrown(() => sqliteStores(dir.open())),
        'corrupt',
      ),
    ).toBe(true);
  });

  it('an empty file is a new database', async () => {
    dir = new TempDir();
    writeFileSync(dir.file(), '');
    const a = await sqliteStores(dir.open()).open('spaces/a');
    await a.batch([{ key: 'k', value: new Uint8Array([1]) }]);
    expect(await a.list('')).toEqual(['k']);
  });

  it('a newer schema is refused with storage, and nothing in it changes', async () => {
    dir = new TempDir();
    const db = dir.open();
    const a = await sqliteStores(db).open('spaces/a');
    await a.batch([{ key: 'k', value: new Uint8Array([1]) }]);
    db.prepare(`UPDATE minca_meta SET value = ? WHERE name = 'schema'`).run(SCHEMA_VERSION + 1);
    const error = thrown(() => sqliteStores(db));
    expect(isMincaError(error, 'storage')).toBe(true);
    expect((error as Error).message).toMatch(/newer/);
    expect(db.prepare('SELECT count(*) AS n FROM minca_entries').get()).toEqual({ n: 1 });
    expect(db.prepare(`SELECT value FROM minca_meta WHERE name = 'schema'`).get()).toEqual({
      value: SCHEMA_VERSION + 1,
    });
  });

  it('a schema version that is not one: corrupt', () => {
    dir = new TempDir();
    const db = dir.open();
    sqliteStores(db);
    db.prepare(`UPDATE minca_meta SET value = 'one' WHERE name = 'schema'`).run();
    expect(
      isMincaError(
        thrown(() => sqliteStores(db)),
        'corrupt',
      ),
    ).toBe(true);
    db.prepare(`DELETE FROM minca_meta`).run();
    expect(
      isMincaError(
        thrown(() => sqliteStores(db)),
        'corrupt',
      ),
    ).toBe(true);
  });

  it('a UTF-16 database is refused with storage, since its text does not sort as UTF-8', () => {
    dir = new TempDir();
    const db = dir.open();
    db.pragma("encoding = 'UTF-16le'");
    db.exec('CREATE TABLE app (x)');
    const error = thrown(() => sqliteStores(db));
    expect(isMincaError(error, 'storage')).toBe(true);
    expect((error as Error).message).toMatch(/UTF-16le/);
  });

  it("keeps beside the app's own tables", async () => {
    dir = new TempDir();
    const db = dir.open();
    db.exec('CREATE TABLE entries (key, value)');
    db.pragma('user_version = 7');
    const a = await sqliteStores(db).open('spaces/a');
    await a.batch([{ key: 'k', value: new Uint8Array([1]) }]);
    expect(db.pragma('user_version', { simple: true })).toBe(7);
    expect(db.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 0 });
  });
});
