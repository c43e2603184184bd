// A store's index written straight into SQLite for the benchmarks that open or re-sync a
// collection of a million versions: making and signing that many would take minutes, and
// opening or re-syncing reads no body. Each version is one record, a second apart.
import { createHash } from 'node:crypto';
import { encodeCbor } from '@minca/core';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';

export const BASE_MS = 1_700_000_000_000;

/** What the index entry of one version is keyed by: the layout under test decides. */
export type IndexKey = (record: string, id: string) => string;

/**
 * Writes the index entries of `count` versions by `author` into the store `path` of a new
 * SQLite database at `file`; version ids are SHA-256 of `${seed}/${i}`.
 */
export async function fillIndex(
  file: string,
  options: { path: string; count: number; seed: string; author: string; key: IndexKey },
): Promise<void> {
  const db = new Database(file);
  const adapter = await sqliteStores(db).open(options.path);
  const batch = 20_000;
  for (let first = 0; first < options.count; first += batch) {
    const entries = [];
    for (let i = first; i < Math.min(options.count, first + batch); i++) {
      const id = createHash('sha256').update(`${options.seed}/${i}`).digest('hex');
      const meta = { r: `r${i}`, p: [], t: BASE_MS + i * 1000, a: options.author, f: [], d: false };
      entries.push({ key: options.key(meta.r, id), value: encodeCbor(meta) });
    }
    await adapter.batch(entries);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}
