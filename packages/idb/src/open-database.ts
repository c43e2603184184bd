/// <reference lib="dom" />
/** Opens one store's database at the current version, emptying one made at an earlier version. */
import { MincaError } from '@minca/core';

/** The version every store database is at. Opening one made at an earlier version empties it. */
export const DATABASE_VERSION = 4;

/** What an open database tells its owner after opening. */
export interface DatabaseEvents {
  /**
   * The connection is gone without the owner closing it: another connection wants to upgrade
   * or delete the database (`versionchange`, and this side closed to let it), or the browser
   * closed it (storage cleared, a failure).
   */
  lost(reason: string): void;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Opens `name` at {@link DATABASE_VERSION} through `factory`. Its object stores, both keyed by
 * string out of line: `kv` (entries, ArrayBuffer values) and `versions` (bodies by id).
 *
 * @throws MincaError `storage` when the open fails (a newer version is on disk, the browser
 * refuses) or is blocked: a connection elsewhere (another tab) holds an earlier version open
 * and did not close when asked. Waiting on a blocked open could hang forever, so it fails at
 * once; the pending request, if it later succeeds, is closed again.
 */
export function openStoreDatabase(
  factory: IDBFactory,
  name: string,
  events: DatabaseEvents,
): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: MincaError) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    let request: IDBOpenDBRequest;
    try {
      request = factory.open(name, DATABASE_VERSION);
    } catch (error) {
      fail(
        new MincaError('storage', `cannot open IndexedDB database ${name}: ${describe(error)}`, {
          cause: error,
        }),
      );
      return;
    }
    request.onupgradeneeded = () => {
      // Every earlier layout is dropped whole: its space records come back by syncing.
      const db = request.result;
      for (const store of Array.from(db.objectStoreNames)) db.deleteObjectStore(store);
      db.createObjectStore('kv');
      db.createObjectStore('versions');
    };
    request.onblocked = () => {
      fail(
        new MincaError(
          'storage',
          `IndexedDB database ${name} is held open at an earlier version elsewhere (another tab?); close it and open again`,
        ),
      );
    };
    request.onerror = (event) => {
      // Handled here: don't let it bubble as an uncaught error.
      event.preventDefault?.();
      const error = request.error;
      const why =
        error?.name === 'VersionError'
          ? `it is at a newer version than ${DATABASE_VERSION}, made by a newer minca`
          : describe(error);
      fail(
        new MincaError('storage', `cannot open IndexedDB database ${name}: ${why}`, {
          cause: error,
        }),
      );
    };
    request.onsuccess = () => {
      const db = request.result;
      if (settled) {
        db.close();
        return;
      }
      settled = true;
      db.onversionchange = () => {
        // Closing lets the other connection's upgrade or delete go ahead instead of blocking.
        db.close();
        events.lost('another connection is upgrading or deleting it');
      };
      db.onclose = () => events.lost('the browser closed it');
      resolve(db);
    };
  });
}
