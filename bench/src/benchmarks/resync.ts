// A write into a collection of 1,000,000 versions, then a re-sync of that collection between two
// stores (issue #19; MINCA_BENCH_RESYNC_VERSIONS, MINCA_BENCH_RESYNC_ROUNDS: 5 rebuild rounds, three
// times as many kept ones). Each store is
// @minca/sqlite over its own file, opened with the same million versions. Each round, store A
// commits one new version (a real one, signed) whose timestamp lands mid-collection, then the
// two run what the sync engine runs for one collection: A's Negentropy session over its sync
// set, B answering each message from its own, A reading the version B lacks and B verifying and
// committing it. process.cpuUsage() around each side's part gives its CPU time (the sides take
// turns, so nothing of one runs inside the other's window).
// Two ways to get a store's set, on the same stores in the same run:
// - rebuild: what sync did before, a set sorted from the collection's versions after every write
//   (`store.derived` with NegentropyStorage), so both sides re-sort a million items each round;
// - kept: `store.syncSet(collection)`, the set kept in blocks, where a write costs its block.
// The limit beside them, measured in the same rounds: the Negentropy messages alone.
// The million versions already held are written as the index entries a store reads when it
// opens (record, timestamp, author); making and signing a million versions would take minutes
// and nothing in a re-sync reads their bodies.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createVersion,
  decodeVersion,
  randomId,
  randomKey,
  SigningKey,
  Store,
  type Version,
  verifyVersion,
  versionIndexKey,
} from '@minca/core';
import { Negentropy, type NegentropySnapshot, NegentropyStorage } from '@minca/core/negentropy';
import { sqliteStores } from '@minca/sqlite';
import Database from 'better-sqlite3';
import { type Benchmark, type Figure, median } from '../harness.js';
import { BASE_MS, fillIndex } from '../index-fill.js';

const COUNT = Number(process.env.MINCA_BENCH_RESYNC_VERSIONS ?? 1_000_000);
const ROUNDS = Number(process.env.MINCA_BENCH_RESYNC_ROUNDS ?? 5);
const COLLECTION = 'app.log';
const PATH = 'spaces/resync';
/** As the sync engine's NEGENTROPY_FRAME_LIMIT. */
const FRAME_LIMIT = 512 * 1024;
const hex = (id: Uint8Array) => Buffer.from(id).toString('hex');
const log = (line: string) => process.stderr.write(`  ${line}\n`);

type SetOf = (store: Store) => NegentropySnapshot | NegentropyStorage | Promise<NegentropyStorage>;

/**
 * The set as sync built it before: sorted from scratch whenever the collection changed (now from
 * the index entries read back, since a store no longer holds every meta).
 */
const rebuilt: SetOf = (store) =>
  store.derived(COLLECTION, (versions) => {
    const set = new NegentropyStorage();
    for (const meta of versions) set.insert(meta.timestamp, Buffer.from(meta.id, 'hex'));
    set.seal();
    return set;
  });
const kept: SetOf = (store) => store.syncSet(COLLECTION);

/** CPU ms (user + system, every thread of the process) that `fn` takes. */
async function cpu<T>(fn: () => T | Promise<T>): Promise<[T, number]> {
  const start = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(start);
  return [value, (used.user + used.system) / 1000];
}

/** Where a side's CPU went: its set, the Negentropy messages, the store (commit, read, verify). */
type Part = 'set' | 'messages' | 'store';
type Side = Record<Part, number>;
interface Round {
  a: Side;
  b: Side;
}
const total = (side: Side) => side.set + side.messages + side.store;

/** One round: A writes `v`, then A and B re-sync the collection. */
async function round(a: Store, b: Store, v: Version, setOf: SetOf): Promise<Round> {
  const r: Round = { a: { set: 0, messages: 0, store: 0 }, b: { set: 0, messages: 0, store: 0 } };
  const on = async <T>(side: Side, part: Part, fn: () => T | Promise<T>) => {
    const [value, ms] = await cpu(fn);
    side[part] += ms;
    return value;
  };
  await on(r.a, 'store', () => a.commit({ versions: [v] }));
  const clientSet = await on(r.a, 'set', () => setOf(a));
  const ne = new Negentropy(clientSet, FRAME_LIMIT);
  let msg: Uint8Array | undefined = await on(r.a, 'messages', () => ne.initiate());
  const have: string[] = [];
  const need: string[] = [];
  while (msg) {
    const query: Uint8Array = msg;
    const serverSet = await on(r.b, 'set', () => setOf(b));
    const reply = await on(r.b, 'messages', () =>
      new Negentropy(serverSet, FRAME_LIMIT).reconcile(query),
    );
    const res = await on(r.a, 'messages', () => ne.reconcile(reply.reply!));
    have.push(...res.have.map(hex));
    need.push(...res.need.map(hex));
    msg = res.reply;
  }
  if (have.length !== 1 || have[0] !== v.id || need.length > 0)
    throw new Error(`resync bench: found ${have.length} to send, ${need.length} to fetch, not 1/0`);
  const bytes = await on(r.a, 'store', () => a.getVersionBytes(have));
  // As the sync engine takes in versions: strict decoding, the signature checked, one commit.
  await on(r.b, 'store', async () => {
    const versions = bytes.map((x) => decodeVersion(x!));
    await Promise.all(versions.map(verifyVersion));
    await b.commit({ versions });
  });
  if (!b.hasVersion(COLLECTION, v.id)) throw new Error('resync bench: B did not take the version');
  return r;
}

const bench: Benchmark = {
  name: 'resync',
  async run(): Promise<Figure[]> {
    const dir = mkdtempSync(join(tmpdir(), 'minca-bench-resync-'));
    const dbs: Database.Database[] = [];
    try {
      const key = SigningKey.generate();
      const spaceKey = randomKey();
      const space = randomId();
      const started = performance.now();
      await fillIndex(join(dir, 'a.sqlite'), {
        path: PATH,
        count: COUNT,
        seed: 'resync',
        author: key.did,
        key: (record, id) => versionIndexKey(COLLECTION, record, id),
      });
      copyFileSync(join(dir, 'a.sqlite'), join(dir, 'b.sqlite'));
      const open = async (name: string) => {
        const db = new Database(join(dir, name));
        dbs.push(db);
        return Store.open(await sqliteStores(db).open(PATH));
      };
      const a = await open('a.sqlite');
      const b = await open('b.sqlite');
      log(
        `two stores of ${COUNT} versions written and opened in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );

      let written = 0;
      // Mid-collection timestamps: each lands inside a full block, the costlier case.
      const next = () => {
        const n = written++;
        return createVersion(
          {
            space,
            collection: COLLECTION,
            record: `new${n}`,
            supersedes: [],
            timestamp: BASE_MS + ((n * 7919 + COUNT / 2) % COUNT) * 1000 + 1,
            files: [],
            body: { n },
          },
          spaceKey,
          key,
        );
      };

      const [, firstBuild] = await cpu(() => a.syncSet(COLLECTION));
      await cpu(() => b.syncSet(COLLECTION));
      const paths = { rebuild: rebuilt, kept } as const;
      const rounds: Record<keyof typeof paths, Round[]> = { rebuild: [], kept: [] };
      // The kept rounds first: a rebuild leaves some hundreds of MB of garbage, whose collection
      // (on helper threads too) would land in later windows. Each path's first round (JIT, the
      // rebuild path's first sets) is not counted.
      for (const name of ['kept', 'rebuild'] as const) {
        for (let i = 0; i <= (name === 'kept' ? 3 * ROUNDS : ROUNDS); i++) {
          const v = await next();
          const r = await round(a, b, v, paths[name]);
          if (i > 0) rounds[name].push(r);
        }
      }
      const med = (name: keyof typeof paths, side: 'a' | 'b', part?: Part) =>
        median(rounds[name].map((r) => (part ? r[side][part] : total(r[side]))));
      const parts = (side: 'a' | 'b') =>
        `set ${med('kept', side, 'set').toFixed(2)}, messages ${med('kept', side, 'messages').toFixed(2)}, store ${med('kept', side, 'store').toFixed(2)}`;
      const label = `${COUNT.toLocaleString('en-US')} versions`;
      const row = (side: 'a' | 'b', who: string): Figure[] => [
        {
          name: `${label}, one write, re-sync, rebuild: CPU on ${who}`,
          value: med('rebuild', side),
          unit: 'ms',
          note: `what sync did before; set ${med('rebuild', side, 'set').toFixed(0)} ms`,
        },
        {
          name: `${label}, one write, re-sync, kept: CPU on ${who}`,
          value: med('kept', side),
          unit: 'ms',
          note: `limit 20 ms; ${(med('rebuild', side) / med('kept', side)).toFixed(0)}× less than rebuild; ${parts(side)}`,
        },
      ];
      return [
        {
          name: `${label}: build the kept set once (A)`,
          value: firstBuild,
          unit: 'ms CPU',
          note: 'on first use, then kept',
        },
        ...row('a', 'A (writer)'),
        ...row('b', 'B'),
        {
          name: `${label}, kept: Negentropy messages alone, A`,
          value: med('kept', 'a', 'messages'),
          unit: 'ms',
          note: `B ${med('kept', 'b', 'messages').toFixed(2)} ms: the protocol's own work, the floor`,
        },
      ];
    } finally {
      for (const db of dbs) db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
