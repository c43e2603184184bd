/** Checks at size: large values, many keys and versions, many writes in flight at once. */
import { readEntries, readVersions } from '../store-io.js';
import type { AdapterHarness } from './adapter-harness.js';
import { assert, assertBytes, assertIs, assertStrings } from './assert.js';
import { sampleBytes, valueFor, versionId } from './sample-bytes.js';

const KIB = 1024;

export async function largeValues(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const chunk = sampleBytes(40, 256 * KIB);
  const big = sampleBytes(41, 1024 * KIB);
  await a.batch([
    { key: 'f/x/0', value: chunk },
    { key: 'big', value: big },
  ]);
  assertBytes(await a.get('f/x/0'), chunk, 'a 256 KiB value');
  assertBytes(await a.get('big'), big, 'a 1 MiB value');
  await a.putVersion(versionId(40), chunk);
  await a.putVersion(versionId(41), big);
  assertBytes(await a.getVersion(versionId(40)), chunk, 'a 256 KiB version body');
  assertBytes(await a.getVersion(versionId(41)), big, 'a 1 MiB version body');
  const entries = await readEntries(a, '');
  assertStrings(
    entries.map(([k]) => k),
    ['big', 'f/x/0'],
    'entries of large values',
  );
  assertBytes(entries[0]![1], big, 'a 1 MiB value through readEntries');
}

const MANY = 10_000;
const BATCH = 500;

function manyKey(i: number): string {
  return `many/${String(i).padStart(5, '0')}`;
}

export async function manyKeys(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = Array.from({ length: MANY }, (_, i) => manyKey(i));
  // Written in reverse, so an adapter that keeps insertion order fails the listing.
  for (let end = MANY; end > 0; end -= BATCH) {
    const group = keys.slice(Math.max(0, end - BATCH), end).reverse();
    await a.batch(group.map((key) => ({ key, value: valueFor(key) })));
  }
  await a.batch([{ key: 'other', value: valueFor('other') }]);
  assertStrings(await a.list('many/'), keys, `list of ${MANY} keys`);
  assertIs((await a.list('')).length, MANY + 1, "keys in list('')");
  assertStrings(await a.list('many/0999'), keys.slice(9990, 10_000), "list('many/0999')");
  const entries = await readEntries(a, 'many/');
  assertIs(entries.length, MANY, `entries under many/`);
  for (const i of [0, 1, 4999, 9998, 9999]) {
    assertBytes(entries[i]![1], valueFor(manyKey(i)), `entry ${i}`);
    assertBytes(await a.get(manyKey(i)), valueFor(manyKey(i)), `get(${manyKey(i)})`);
  }
}

/** Only with `large`: 10,000 version bodies. */
export async function manyVersions(h: AdapterHarness): Promise<void> {
  if (!h.large) return;
  const a = await h.open();
  const ids = Array.from({ length: MANY }, (_, i) => versionId(100_000 + i));
  for (let i = 0; i < MANY; i += 100) {
    await Promise.all(
      ids.slice(i, i + 100).map((id, j) => a.putVersion(id, sampleBytes(i + j, 100))),
    );
  }
  const bodies = await readVersions(a, ids);
  assertIs(bodies.length, MANY, 'bodies read');
  for (const [i, body] of bodies.entries()) assertBytes(body, sampleBytes(i, 100), `body ${i}`);
  for (let i = 0; i < MANY; i += 2) await a.deleteVersion(ids[i]!);
  const after = await readVersions(a, ids);
  assert(
    after.every((body, i) => (i % 2 === 0 ? body === undefined : body !== undefined)),
    'after deleting every other version, exactly those read as absent',
  );
}

/** Many batches and putVersions in flight at once all land, none lost to a race. */
export async function concurrentWrites(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const n = 50;
  await Promise.all([
    ...Array.from({ length: n }, (_, i) =>
      a.batch([
        { key: `c/${i}/a`, value: valueFor(`c/${i}/a`) },
        { key: `c/${i}/b`, value: valueFor(`c/${i}/b`) },
      ]),
    ),
    ...Array.from({ length: n }, (_, i) =>
      a.putVersion(versionId(200 + i), sampleBytes(200 + i, 50)),
    ),
    ...Array.from({ length: n }, (_, i) => a.batch([{ key: 'same', value: valueFor('same', i) }])),
  ]);
  const listed = await a.list('c/');
  assertIs(listed.length, 2 * n, 'keys written by concurrent batches');
  for (let i = 0; i < n; i++) {
    assertBytes(await a.get(`c/${i}/b`), valueFor(`c/${i}/b`), `get(c/${i}/b)`);
    assertBytes(await a.getVersion(versionId(200 + i)), sampleBytes(200 + i, 50), `version ${i}`);
  }
  const same = await a.get('same');
  assert(
    Array.from({ length: n }, (_, i) => valueFor('same', i)).some(
      (v) => same !== undefined && v.length === same.length && v.every((b, j) => b === same[j]),
    ),
    'a key many concurrent batches wrote holds one of their values, whole',
  );
}
