/** Temp directories holding SQLite files, and better-sqlite3 connections to them, for tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** A temp directory; `open` gives connections to files in it, `dispose` closes them and deletes it. */
export class TempDir {
  readonly path = mkdtempSync(join(tmpdir(), 'minca-sqlite-'));
  readonly #connections: Database.Database[] = [];

  file(name = 'node.sqlite'): string {
    return join(this.path, name);
  }

  open(name = 'node.sqlite'): Database.Database {
    const db = new Database(this.file(name));
    this.#connections.push(db);
    return db;
  }

  dispose(): void {
    for (const db of this.#connections.splice(0)) if (db.open) db.close();
    rmSync(this.path, { recursive: true, force: true });
  }
}
