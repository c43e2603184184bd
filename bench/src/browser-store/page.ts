/// <reference lib="dom" />
// The IndexedDB side of the IndexedDB/SQLite benchmark, bundled and run in Chromium: the store
// filled through @minca/idb, then each job through the adapter and through raw IndexedDB calls
// (no wrapper) on the same database, timed in the page.
import { indexedDBStores } from '@minca/idb';
import { fill } from './dataset.js';
import { type Conn, connThrough, type JobResult, runJobs } from './jobs.js';

const PREFIX = 'bench';
const PATH = 'spaces/bench';
const DATABASE = `${PREFIX}:${PATH.replaceAll('/', ':')}`;

/** A connection through @minca/idb: a new factory and store, so a new database connection. */
async function adapterConn(): Promise<Conn> {
  const stores = indexedDBStores(PREFIX);
  return connThrough(await stores.open(PATH), () => stores.close!());
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

/** `getAllRecords` (Chromium 141 and later), not yet in TypeScript's DOM types. */
interface RecordsStore {
  getAllRecords(options: {
    query?: IDBKeyRange;
  }): IDBRequest<Array<{ key: IDBValidKey; value: unknown }>>;
}

/** The range of keys starting with an ASCII prefix. */
const range = (prefix: string) =>
  IDBKeyRange.bound(
    prefix,
    prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1),
    false,
    true,
  );

/** The bytes to put: the buffer itself when the view spans it (put clones it), else a copy. */
const buffer = (bytes: Uint8Array) =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes.buffer
    : bytes.slice().buffer;

/** Raw IndexedDB on the same database: one transaction per call, as the adapter makes. */
async function rawConn(): Promise<Conn> {
  const db = await request(indexedDB.open(DATABASE, 4));
  const store = (name: string, mode: IDBTransactionMode = 'readonly') =>
    db.transaction(name, mode).objectStore(name);
  return {
    async get(key) {
      const value = await request(store('kv').get(key));
      return value === undefined ? undefined : new Uint8Array(value as ArrayBuffer);
    },
    async entries(prefix) {
      const kv = store('kv') as IDBObjectStore & Partial<RecordsStore>;
      // The fastest the browser has: keys and values in one request, where it can.
      if (kv.getAllRecords) {
        const records = await request(kv.getAllRecords({ query: range(prefix) }));
        return records.map(({ key, value }) => [
          key as string,
          new Uint8Array(value as ArrayBuffer),
        ]);
      }
      const [keys, values] = await Promise.all([
        request(kv.getAllKeys(range(prefix))),
        request(kv.getAll(range(prefix))),
      ]);
      return keys.map((key, i) => [key as string, new Uint8Array(values[i] as ArrayBuffer)]);
    },
    count: (prefix) => request(store('kv').count(range(prefix))),
    async getVersions(ids) {
      const tx = db.transaction('versions');
      const bodies = tx.objectStore('versions');
      const out: Array<Uint8Array | undefined> = new Array(ids.length);
      ids.forEach((id, i) => {
        const req = bodies.get(id);
        req.onsuccess = () => {
          out[i] = req.result === undefined ? undefined : new Uint8Array(req.result as ArrayBuffer);
        };
      });
      await done(tx);
      return out;
    },
    async commit(commit) {
      const tx = db.transaction(['kv', 'versions'], 'readwrite');
      const kv = tx.objectStore('kv');
      const bodies = tx.objectStore('versions');
      for (const [id, body] of commit.versions) bodies.put(buffer(body), id);
      for (const { key, value } of commit.entries) kv.put(buffer(value!), key);
      await done(tx);
    },
    async close() {
      db.close();
    },
  };
}

export interface PageResult {
  userAgent: string;
  fillMs: number;
  jobs: JobResult[];
  /** Median ms of a one-put commit, raw, by transaction durability. */
  durability: Record<IDBTransactionDurability, number>;
}

/** Medians of 21 one-put commits at each durability, turn about: what each waits for. */
async function durabilities(): Promise<Record<IDBTransactionDurability, number>> {
  const db = await request(indexedDB.open(DATABASE, 4));
  const kinds: IDBTransactionDurability[] = ['default', 'relaxed', 'strict'];
  const times = new Map(kinds.map((k) => [k, [] as number[]]));
  for (let i = 0; i < 21; i++) {
    for (const durability of kinds) {
      const start = performance.now();
      const tx = db.transaction('kv', 'readwrite', { durability });
      tx.objectStore('kv').put(new ArrayBuffer(360), `d/${durability}/${i}`);
      await done(tx);
      times.get(durability)!.push(performance.now() - start);
    }
  }
  db.close();
  const median = (t: number[]) => t.sort((a, b) => a - b)[t.length >> 1]!;
  return Object.fromEntries(kinds.map((k) => [k, median(times.get(k)!)])) as Record<
    IDBTransactionDurability,
    number
  >;
}

async function run(): Promise<PageResult> {
  await request(indexedDB.deleteDatabase(DATABASE));
  const start = performance.now();
  const stores = indexedDBStores(PREFIX);
  await fill(await stores.open(PATH));
  await stores.close!();
  const fillMs = performance.now() - start;
  const jobs = await runJobs(adapterConn, rawConn, (line) => console.log(line));
  const durability = await durabilities();
  await request(indexedDB.deleteDatabase(DATABASE));
  return { userAgent: navigator.userAgent, fillMs, jobs, durability };
}

/** The wasm SQLite side, in a dedicated worker of this page (wasm-worker.ts). */
function runWasm(): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker('/wasm-worker.js', { type: 'module' });
    worker.onmessage = ({ data }: MessageEvent<{ result?: unknown; error?: string }>) => {
      worker.terminate();
      if (data.error !== undefined) reject(new Error(data.error));
      else resolve(data.result);
    };
    worker.onerror = (event) => reject(new Error(`the wasm worker failed: ${event.message}`));
    worker.postMessage('run');
  });
}

(globalThis as unknown as { mincaBench: unknown }).mincaBench = { run, runWasm };
