// Records put/get per second on @minca/memory, beside the crypto every put must do (one
// Ed25519 signature, one seal, one SHA-256) measured on the same bytes in the same run, and
// beside the platform's raw Ed25519 sign rates: one after another (node:crypto) for puts made
// one after another, on all cores for `putMany` and for puts made many at once.
import * as crypto from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as workers from 'node:worker_threads';
import {
  createNode,
  encodeCbor,
  hashId,
  IdSum,
  nodeCrypto,
  randomKey,
  SigningKey,
  seal,
} from '@minca/core';
import { memoryStores } from '@minca/memory';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { allCores, signOneAtATime } from '../ed25519-limits.js';
import { type Benchmark, median, medianMs } from '../harness.js';

const COUNT = 5_000;
const MANY = 10_000;
const RUNS = 5;

interface Run {
  putWeb: number;
  put: number;
  putSqlite: number;
  get: number;
  list: number;
  putMany: number;
  putManyBatched: number;
  atOnce: number;
  atOnceSqlite: number;
  floor: number;
}

const post = (i: number) => ({ text: `post ${i}`, n: i });

/** Records per second of `COUNT` puts one after another on a new node. */
async function puts(withNodeCrypto: boolean) {
  const node = await createNode({
    stores: memoryStores(),
    ...(withNodeCrypto ? { crypto: nodeCrypto(crypto) } : {}),
  });
  const space = await node.spaces.create();
  const ids: string[] = [];
  const start = performance.now();
  for (let i = 0; i < COUNT; i++)
    ids.push((await node.records.put(space.id, 'app.post', post(i))).id);
  return { node, space: space.id, ids, rate: COUNT / ((performance.now() - start) / 1000) };
}

/** A new node over SQLite in a new file, with the connection as sqliteStores sets it. */
async function sqliteNode(platform: ReturnType<typeof nodeCrypto>) {
  const dir = mkdtempSync(join(tmpdir(), 'minca-bench-puts-'));
  const file = join(dir, 'node.sqlite');
  const db = new Database(file);
  const node = await createNode({ stores: sqliteStores(db), crypto: platform });
  const space = (await node.spaces.create()).id;
  const close = async () => {
    await node.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { node, space, db, file, close };
}

/**
 * `COUNT` puts one after another on a new node over SQLite (each put a commit of its own):
 * records per second or, with `countLog`, the pages of write-ahead log each put writes
 * (checkpoints held off meanwhile, so the log keeps them all; SQLite frames are a page and a
 * 24-byte header).
 */
async function sqlitePuts(countLog = false): Promise<number> {
  const { node, space, db, file, close } = await sqliteNode(nodeCrypto(crypto));
  try {
    if (countLog) {
      db.pragma('wal_autocheckpoint = 0');
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
    const start = performance.now();
    for (let i = 0; i < COUNT; i++) await node.records.put(space, 'app.post', post(i));
    const rate = COUNT / ((performance.now() - start) / 1000);
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const logPages = statSync(`${file}-wal`).size / (pageSize + 24) / COUNT;
    return countLog ? logPages : rate;
  } finally {
    await close();
  }
}

/**
 * node:crypto signing a `putMany` on worker threads: one per core but the one the calling
 * thread seals and stores on, which is busy the whole time (a worker more would only take turns
 * with it). One for the process, as an app makes it: its workers start once, not per node.
 */
const manyPlatform = nodeCrypto(crypto, {
  workers,
  threads: Math.max(1, availableParallelism() - 1),
});

/** A new node in memory signing with `manyPlatform`, with a space of its own. */
async function memoryNode() {
  const node = await createNode({ stores: memoryStores(), crypto: manyPlatform });
  const space = (await node.spaces.create()).id;
  return { node, space, close: () => node.close() };
}

/** Records per second of one `putMany` of `MANY` on a new node signing with `manyPlatform`. */
async function putMany(perSignature: number): Promise<number> {
  const { node, space, close } = await memoryNode();
  const items = Array.from({ length: MANY }, (_, i) => ({ body: post(i) }));
  const start = performance.now();
  await node.records.putMany(space, 'app.post', items, { perSignature });
  const rate = MANY / ((performance.now() - start) / 1000);
  await close();
  return rate;
}

/**
 * Records per second of `MANY` puts made at once (not awaited one by one) on a new node signing
 * with `manyPlatform`, over SQLite or in memory: puts made while one is written join the next.
 */
async function putsAtOnce(sqlite: boolean): Promise<number> {
  const { node, space, close } = sqlite ? await sqliteNode(manyPlatform) : await memoryNode();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: MANY }, (_, i) => node.records.put(space, 'app.post', post(i))),
  );
  const rate = MANY / ((performance.now() - start) / 1000);
  await close();
  return rate;
}

async function once(): Promise<Run> {
  const web = await puts(false);
  await web.node.close();
  const { node, space, ids, rate: put } = await puts(true);
  let start = performance.now();
  for (const id of ids) await node.records.get(space, 'app.post', id);
  const get = COUNT / ((performance.now() - start) / 1000);
  start = performance.now();
  await node.records.list(space, 'app.post');
  const list = COUNT / ((performance.now() - start) / 1000);
  await node.close();

  const key = SigningKey.generate();
  const spaceKey = randomKey();
  start = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const body = seal(spaceKey, encodeCbor(post(i)));
    hashId(await key.sign(body));
  }
  const floor = COUNT / ((performance.now() - start) / 1000);
  return {
    putWeb: web.rate,
    put,
    putSqlite: await sqlitePuts(),
    get,
    list,
    putMany: await putMany(1),
    atOnce: await putsAtOnce(false),
    atOnceSqlite: await putsAtOnce(true),
    putManyBatched: await putMany(64),
    floor,
  };
}

const bench: Benchmark = {
  name: 'records',
  async run() {
    const runs: Run[] = [];
    const signOne: number[] = [];
    const signAll: Array<{ rate: number; how: string }> = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await once());
      signOne.push(signOneAtATime());
      signAll.push(await allCores('sign'));
    }
    const m = (k: keyof Run) => median(runs.map((r) => r[k]));
    const one = median(signOne);
    const all = median(signAll.map((s) => s.rate));
    const how = signAll.find((s) => s.rate === all)?.how ?? signAll[0]!.how;
    const floor = m('floor');
    const logPages = await sqlitePuts(true);
    // A store's fingerprint is one hash over a running sum of its ids: what it costs to build
    // that sum from scratch, as opening a store of 1,000,000 versions does.
    const ids = Array.from({ length: 1_000_000 }, (_, i) => hashId(encodeCbor(i)));
    const sumMs = await medianMs(3, () => {
      const sum = new IdSum();
      for (const id of ids) sum.add(id);
      return sum.fingerprint();
    });
    return [
      {
        name: 'raw: node:crypto sign, one after another',
        value: one,
        unit: 'signatures/s',
      },
      { name: 'raw: sign on all cores', value: all, unit: 'signatures/s', note: how },
      {
        name: 'put (memory, WebCrypto)',
        value: m('putWeb'),
        unit: 'records/s',
        note: `${(m('putWeb') / floor).toFixed(2)}× sign+seal+hash alone (${Math.round(floor)}/s)`,
      },
      {
        name: 'put (memory, node:crypto)',
        value: m('put'),
        unit: 'records/s',
        note: `${(m('put') / one).toFixed(2)}× node:crypto sign one after another`,
      },
      {
        name: 'put (SQLite file, node:crypto)',
        value: m('putSqlite'),
        unit: 'records/s',
        note: `${(m('putSqlite') / one).toFixed(2)}× node:crypto sign one after another`,
      },
      {
        name: 'write-ahead log per SQLite put',
        value: logPages,
        unit: 'pages',
        note: `over ${COUNT.toLocaleString('en-US')} puts from an empty space`,
      },
      {
        name: `putMany of ${MANY.toLocaleString('en-US')} (memory, node:crypto)`,
        value: m('putMany'),
        unit: 'records/s',
        note: `${(m('putMany') / all).toFixed(2)}× sign on all cores`,
      },
      {
        name: `putMany of ${MANY.toLocaleString('en-US')}, 64 per signature`,
        value: m('putManyBatched'),
        unit: 'records/s',
        note: `${(m('putManyBatched') / all).toFixed(2)}× sign on all cores`,
      },
      {
        name: `put, ${MANY.toLocaleString('en-US')} made at once (memory, node:crypto)`,
        value: m('atOnce'),
        unit: 'records/s',
        note: `${(m('atOnce') / all).toFixed(2)}× sign on all cores`,
      },
      {
        name: `put, ${MANY.toLocaleString('en-US')} made at once (SQLite file, node:crypto)`,
        value: m('atOnceSqlite'),
        unit: 'records/s',
        note: `${(m('atOnceSqlite') / all).toFixed(2)}× sign on all cores`,
      },
      { name: 'get (memory)', value: m('get'), unit: 'records/s' },
      { name: `list ${COUNT} (memory)`, value: m('list'), unit: 'records/s' },
      {
        name: 'fingerprint of 1,000,000 ids, from scratch',
        value: sumMs,
        unit: 'ms',
        note: 'after that, one SHA-256 per fingerprint',
      },
    ];
  },
};
export default bench;
