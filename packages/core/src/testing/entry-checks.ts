/** Checks of the basic contract: entries and versions round trip, absence, overwrite, delete, atomic batches, bytes not aliased. */
import type { StorageAdapter } from '../adapter.js';
import type { AdapterHarness } from './adapter-harness.js';
import { assert, assertBytes, assertIs, assertStrings, rejection } from './assert.js';
import { sampleBytes, valueFor, versionId } from './sample-bytes.js';

type SetTimeout = (callback: () => void, ms: number) => unknown;

/** Waits a macrotask, so a write the adapter split across tasks can be caught half done. */
function nextTask(): Promise<void> {
  const later = (globalThis as { setTimeout?: SetTimeout }).setTimeout;
  return new Promise((resolve) => (later ? later(resolve, 0) : resolve()));
}

async function putAll(adapter: StorageAdapter, keys: readonly string[], generation = 0) {
  await adapter.batch(keys.map((key) => ({ key, value: valueFor(key, generation) })));
}

export async function roundTrip(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const keys = ['b', 'a', 'c/d'];
  await putAll(a, keys);
  for (const key of keys) assertBytes(await a.get(key), valueFor(key), `get(${key})`);
  assertStrings(await a.list(''), ['a', 'b', 'c/d'], "list('')");
  const empty = new Uint8Array(0);
  await a.batch([{ key: 'empty', value: empty }]);
  assertBytes(await a.get('empty'), empty, 'an empty value reads back as 0 bytes, not absent');
}

export async function absentIsUndefined(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  assertIs(await a.get('nothing'), undefined, 'get of an absent key');
  assertIs(await a.getVersion(versionId(1)), undefined, 'getVersion of an absent id');
  assertStrings(await a.list(''), [], "list('') of an empty store");
  assertStrings(await a.list('nothing'), [], 'list of an absent prefix');
  if (a.entries) assertIs((await a.entries('')).length, 0, "entries('') of an empty store");
  if (a.getVersions) {
    const got = await a.getVersions([versionId(1), versionId(2)]);
    assertIs(got.length, 2, 'getVersions answers one per id asked');
    assertIs(got[0], undefined, 'getVersions of an absent id');
  }
  await putAll(a, ['x']);
  await a.batch([{ key: 'x', value: undefined }]);
  assertIs(await a.get('x'), undefined, 'get of a deleted key');
}

export async function overwrite(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  await putAll(a, ['k', 'other'], 1);
  await putAll(a, ['k'], 2);
  assertBytes(await a.get('k'), valueFor('k', 2), 'get after overwrite');
  assertBytes(await a.get('other'), valueFor('other', 1), 'a key the overwrite did not name');
  assertStrings(await a.list(''), ['k', 'other'], 'list after overwrite');
  await a.batch([
    { key: 'twice', value: valueFor('twice', 1) },
    { key: 'twice', value: valueFor('twice', 2) },
  ]);
  assertBytes(
    await a.get('twice'),
    valueFor('twice', 2),
    'a key written twice in one batch (last wins)',
  );
  await a.batch([{ key: 'k', value: new Uint8Array([7]) }]);
  assertBytes(await a.get('k'), new Uint8Array([7]), 'overwrite with a shorter value');
}

export async function deleteThroughBatch(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  await putAll(a, ['a', 'b', 'c']);
  await a.batch([
    { key: 'b', value: undefined },
    { key: 'never-there', value: undefined },
    { key: 'd', value: valueFor('d') },
  ]);
  assertIs(await a.get('b'), undefined, 'get of a key deleted in a batch');
  assertStrings(await a.list(''), ['a', 'c', 'd'], 'list after a batch that deletes and puts');
  await a.batch([
    { key: 'e', value: valueFor('e') },
    { key: 'e', value: undefined },
  ]);
  assertIs(await a.get('e'), undefined, 'a key put then deleted in one batch (last wins)');
  await a.batch([]);
  assertStrings(await a.list(''), ['a', 'c', 'd'], 'an empty batch changes nothing');
}

/** A batch whose last write is bad (its value is not bytes) must fail whole, leaving what was stored. */
export async function failedBatchWritesNothing(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  await putAll(a, ['kept', 'old'], 1);
  const bad = { key: 'bad', value: 'not bytes' as unknown as Uint8Array };
  await rejection(
    () => a.batch([{ key: 'new', value: valueFor('new') }, { key: 'old', value: undefined }, bad]),
    'batch with a value that is not a Uint8Array',
  );
  assertStrings(await a.list(''), ['kept', 'old'], 'list after a failed batch (all or nothing)');
  assertBytes(await a.get('old'), valueFor('old', 1), 'a key a failed batch would have deleted');
  if (a.commit) {
    await rejection(
      () =>
        a.commit!({
          versions: [[versionId(5), sampleBytes(5, 10)]],
          entries: [bad],
          deleteVersions: [],
        }),
      'commit with a value that is not a Uint8Array',
    );
    assertIs(
      await a.getVersion(versionId(5)),
      undefined,
      'a version a failed commit would have put',
    );
    assertStrings(await a.list(''), ['kept', 'old'], 'list after a failed commit');
  }
}

/** While a batch lands, a reader sees none of it or all of it; after, all of it. */
export async function batchIsAtomicToReaders(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const n = 200;
  const keys = Array.from({ length: n }, (_, i) => `atomic/${String(i).padStart(3, '0')}`);
  await putAll(a, keys, 1);
  const landing = a.batch([
    ...keys.map((key) => ({ key, value: valueFor(key, 2) })),
    ...keys.map((key) => ({ key: `${key}/new`, value: valueFor(key, 2) })),
  ]);
  let done = false;
  void landing.then(
    () => (done = true),
    () => (done = true),
  );
  for (let polls = 0; !done && polls < 200; polls++) {
    await nextTask();
    const listed = (await a.list('atomic/')).length;
    assert(
      listed === n || listed === 2 * n,
      `a reader saw ${listed - n} of ${n} new keys mid-batch`,
    );
    if (a.entries) {
      const generations = new Set((await a.entries('atomic/')).map(([, v]) => v[1]));
      assert(generations.size === 1, 'entries() saw old and new values of one batch at once');
    }
  }
  await landing;
  const after = await a.list('atomic/');
  assertIs(after.length, 2 * n, 'keys listed after the batch');
  for (const key of keys)
    assertBytes(await a.get(key), valueFor(key, 2), `get(${key}) after the batch`);
}

export async function versionsRoundTrip(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const [x, y] = [versionId(10), versionId(11)];
  const [bx, by] = [sampleBytes(10, 300), sampleBytes(11, 5)];
  await a.putVersion(x, bx);
  await a.putVersion(y, by);
  assertBytes(await a.getVersion(x), bx, 'getVersion');
  assertBytes(await a.getVersion(y), by, 'getVersion of a second id');
  await a.putVersion(x, bx);
  assertBytes(await a.getVersion(x), bx, 'getVersion after putting the same body again');
  await a.deleteVersion(x);
  assertIs(await a.getVersion(x), undefined, 'getVersion after deleteVersion');
  assertBytes(await a.getVersion(y), by, 'a version deleteVersion did not name');
  await a.deleteVersion(versionId(12));
  const empty = new Uint8Array(0);
  await a.putVersion(versionId(13), empty);
  assertBytes(await a.getVersion(versionId(13)), empty, 'an empty body reads back as 0 bytes');
  // Versions and entries are separate: an entry keyed like a version id is not that version.
  await a.batch([{ key: y, value: valueFor(y) }]);
  assertBytes(await a.getVersion(y), by, 'a version after an entry with its id as key');
  await a.deleteVersion(y);
  assertBytes(await a.get(y), valueFor(y), 'an entry keyed like a deleted version');
  assertStrings(await a.list(''), [y], 'versions are not listed as entries');
}

/** Mutating a value given or returned must not change what the store holds. */
export async function bytesAreNotAliased(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const input = sampleBytes(20, 64);
  const expected = input.slice();
  await a.batch([{ key: 'k', value: input }]);
  input.fill(0);
  assertBytes(await a.get('k'), expected, 'get after mutating the batch input');
  (await a.get('k'))!.fill(1);
  assertBytes(await a.get('k'), expected, 'get after mutating a value get returned');
  if (a.entries) {
    (await a.entries('k'))[0]![1].fill(2);
    assertBytes(await a.get('k'), expected, 'get after mutating a value entries returned');
  }
  const id = versionId(20);
  const body = sampleBytes(21, 64);
  const expectedBody = body.slice();
  await a.putVersion(id, body);
  body.fill(0);
  assertBytes(
    await a.getVersion(id),
    expectedBody,
    'getVersion after mutating the putVersion input',
  );
  (await a.getVersion(id))!.fill(1);
  assertBytes(await a.getVersion(id), expectedBody, 'getVersion after mutating what it returned');
  if (a.getVersions) {
    (await a.getVersions([id]))[0]!.fill(2);
    assertBytes(
      await a.getVersion(id),
      expectedBody,
      'getVersion after mutating what getVersions returned',
    );
  }
  if (a.commit) {
    const entry = sampleBytes(22, 64);
    const version = sampleBytes(23, 64);
    const [e, v] = [entry.slice(), version.slice()];
    await a.commit({
      versions: [[versionId(23), version]],
      entries: [{ key: 'c', value: entry }],
      deleteVersions: [],
    });
    entry.fill(0);
    version.fill(0);
    assertBytes(await a.get('c'), e, 'get after mutating a commit input');
    assertBytes(await a.getVersion(versionId(23)), v, 'getVersion after mutating a commit input');
  }
}

/** A view into a larger buffer stores its own bytes only (not the whole buffer). */
export async function viewsStoreOnlyTheirBytes(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const backing = sampleBytes(30, 100);
  const view = backing.subarray(10, 30);
  await a.batch([{ key: 'view', value: view }]);
  assertBytes(await a.get('view'), backing.slice(10, 30), 'get of a value written from a subarray');
  await a.putVersion(versionId(30), view);
  assertBytes(
    await a.getVersion(versionId(30)),
    backing.slice(10, 30),
    'getVersion of a body written from a subarray',
  );
}
