// Schema 4 finds a version through two indexes of ids: recent ones, which commits write, and
// settled ones, into which the recent are moved once enough gathered (version-rows.ts). Every
// version must be found through exactly one of them, whatever was put, replaced or deleted
// before or after a move, and a move is part of its transaction.
import { createHash } from 'node:crypto';
import type { StorageAdapter } from '@minca/core';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStores } from '../src/index.ts';
import { TempDir } from './temp-db.ts';

/** Hashes, and every seventh a near twin of the one before (same prefix, other end). */
const ID = (n: number): string => {
  if (n % 7 === 6) return `${ID(n - 1).slice(0, 60)}${(n % 65536).toString(16).padStart(4, '0')}`;
  return createHash('sha256').update(`v${n}`).digest('hex');
};
const body = (n: number, of = 0) => new Uint8Array(40).fill((n + of) % 251);

let dir: TempDir | undefined;
afterEach(() => {
  dir?.dispose();
  dir = undefined;
});

function setup() {
  dir = new TempDir();
  const db = dir.open();
  const stores = sqliteStores(db);
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const state = () => ({
    rows: count('SELECT count(*) AS n FROM minca_versions'),
    recent: count('SELECT count(*) AS n FROM minca_recent_ids'),
    settled: count('SELECT count(*) AS n FROM minca_version_ids'),
    mark: count(`SELECT value AS n FROM minca_meta WHERE name = 'settled'`),
    // A row found through both indexes, or through neither, or through an index row of
    // another id's prefix or store.
    astray: count(`SELECT count(*) AS n FROM minca_versions AS v WHERE
      (SELECT count(*) FROM minca_recent_ids AS r
        WHERE r.n = v.n AND r.store = v.store AND r.prefix = v.prefix)
      + (SELECT count(*) FROM minca_version_ids AS s
        WHERE s.n = v.n AND s.store = v.store AND s.prefix = v.prefix) != 1`),
  });
  return { db, stores, state, count };
}

/** Puts versions `from` to `to` (exclusive) into `store`, `perCommit` a commit. */
async function putRange(store: StorageAdapter, from: number, to: number, perCommit = 500) {
  for (let i = from; i < to; i += perCommit) {
    const versions: Array<[string, Uint8Array]> = [];
    for (let n = i; n < Math.min(to, i + perCommit); n++) versions.push([ID(n), body(n)]);
    await store.commit!({ versions, entries: [], deleteVersions: [] });
  }
}

describe('version ids, recent and settled', () => {
  it('moves recent ids once 8,192 gathered, and finds every version before and after', async () => {
    const { stores, state } = setup();
    const a = await stores.open('spaces/a');
    await putRange(a, 0, 8000);
    expect(state()).toEqual({ rows: 8000, recent: 8000, settled: 0, mark: 0, astray: 0 });
    await putRange(a, 8000, 8500);
    // The commit that brought them past 8,192 moved them all, its own too.
    expect(state()).toEqual({ rows: 8500, recent: 0, settled: 8500, mark: 8500, astray: 0 });
    await putRange(a, 8500, 9000);
    expect(state()).toMatchObject({ recent: 500, settled: 8500, astray: 0 });
    const reads = await a.getVersions!(Array.from({ length: 9000 }, (_, n) => ID(n)));
    reads.forEach((read, n) => {
      expect(read).toEqual(body(n));
    });
    // A twin's prefix with an id never put finds nothing.
    expect(await a.getVersion(`${ID(5).slice(0, 60)}ffff`)).toBeUndefined();
  });

  it('replaces and deletes versions whichever index holds them', async () => {
    const { stores, state, count } = setup();
    const a = await stores.open('spaces/a');
    await putRange(a, 0, 8500); // settled
    await putRange(a, 8500, 9000); // recent
    for (const n of [5, 6, 8600, 8601]) await a.putVersion(ID(n), body(n, 1));
    await a.commit!({ versions: [], entries: [], deleteVersions: [ID(12), ID(13), ID(8700)] });
    await a.deleteVersion(ID(8701));
    // 5 and 6 were settled: their old rows stay until the recent ids move, read past (newer
    // rows first). 8600 and 8601 were recent: replaced at once.
    expect(state()).toMatchObject({ rows: 8998, recent: 500, settled: 8498, astray: 0 });
    // Each version counts once in the store's size, the old rows of 5 and 6 not at all.
    expect(await stores.size('spaces/a')).toBe(8996 * 40);
    for (const n of [5, 6, 8600, 8601]) expect(await a.getVersion(ID(n))).toEqual(body(n, 1));
    for (const n of [12, 13, 8700, 8701]) expect(await a.getVersion(ID(n))).toBeUndefined();
    // Their twins stay.
    expect(await a.getVersion(ID(11))).toEqual(body(11));
    expect(await a.getVersion(ID(8702))).toEqual(body(8702));
    // Deleting a settled body put again deletes both rows.
    await a.putVersion(ID(20), body(20, 1));
    await a.deleteVersion(ID(20));
    expect(await a.getVersion(ID(20))).toBeUndefined();
    expect(state()).toMatchObject({ rows: 8997, recent: 500, settled: 8497, astray: 0 });
    expect(await stores.size('spaces/a')).toBe(8995 * 40);
    // Once the recent ids move, the old rows of 5 and 6 are gone: one row per version.
    await putRange(a, 9000, 17000);
    expect(state()).toMatchObject({ rows: 16995, recent: 0, settled: 16995, astray: 0 });
    expect(state().mark).toBe(count('SELECT max(n) AS n FROM minca_versions'));
    for (const n of [5, 6, 8600, 8601]) expect(await a.getVersion(ID(n))).toEqual(body(n, 1));
    expect(await stores.size('spaces/a')).toBe(16995 * 40);
  });

  it('keeps stores apart in both indexes, and sizes each one', async () => {
    const { stores, state } = setup();
    const a = await stores.open('spaces/a');
    const b = await stores.open('spaces/b');
    await putRange(a, 0, 8500);
    await b.commit!({ versions: [[ID(1), body(1, 2)]], entries: [], deleteVersions: [] });
    expect(state()).toMatchObject({ recent: 1, settled: 8500, astray: 0 });
    expect(await b.getVersion(ID(1))).toEqual(body(1, 2));
    expect(await a.getVersion(ID(1))).toEqual(body(1));
    expect(await b.getVersion(ID(2))).toBeUndefined();
    expect(await stores.size('spaces/a')).toBe(8500 * 40);
    expect(await stores.size('spaces/b')).toBe(40);
  });

  it('undoes a move with the transaction it was part of', async () => {
    const { db, stores, state } = setup();
    const a = await stores.open('spaces/a');
    await putRange(a, 0, 8000);
    const before = state();
    db.exec('BEGIN');
    await putRange(a, 8000, 8500);
    expect(state()).toMatchObject({ recent: 0, settled: 8500 });
    db.exec('ROLLBACK');
    expect(state()).toEqual(before);
    expect(await a.getVersion(ID(7999))).toEqual(body(7999));
    expect(await a.getVersion(ID(8000))).toBeUndefined();
    await putRange(a, 8000, 8500);
    expect(state()).toEqual({ rows: 8500, recent: 0, settled: 8500, mark: 8500, astray: 0 });
  });
});
