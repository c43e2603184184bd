/**
 * The optional methods only save round trips: each, when present, answers as the required ones
 * do through store-io's fallbacks. And without `commit`, writes land in the safe order.
 */
import type { Commit, StorageAdapter } from '../adapter.js';
import { unnamedFiles } from '../named-files.js';
import { readEntries, readVersions, writeCommit } from '../store-io.js';
import { type AdapterHarness, requiredOnly } from './adapter-harness.js';
import { assertBytes, assertIs, assertStrings, fail } from './assert.js';
import { checkStoreIntegrity } from './integrity.js';
import { sampleBytes, valueFor, versionId } from './sample-bytes.js';

const KEYS = ['a', 'a/', 'a/b', 'ab', 'b', 'foo', 'foobar', 'fop', 'é', '😀', 'a\uffff'];

export async function entriesMatchesRequired(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  if (!a.entries) return;
  await a.batch(KEYS.map((key) => ({ key, value: valueFor(key) })));
  await a.batch([{ key: 'b', value: undefined }]);
  for (const prefix of ['', 'a', 'a/', 'foo', 'fo', 'x', '😀', 'a\uffff']) {
    const fast = await a.entries(prefix);
    const slow = await readEntries(requiredOnly(a), prefix);
    const what = `entries(${JSON.stringify(prefix)})`;
    assertStrings(
      fast.map(([k]) => k),
      slow.map(([k]) => k),
      `${what} keys`,
    );
    for (const [i, [, value]] of slow.entries())
      assertBytes(fast[i]![1], value, `${what} value ${i}`);
  }
}

export async function countMatchesRequired(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  if (!a.count) return;
  await a.batch(KEYS.map((key) => ({ key, value: valueFor(key) })));
  await a.batch([{ key: 'b', value: undefined }]);
  for (const prefix of ['', 'a', 'a/', 'b', 'foo', 'fo', 'x', '😀', 'a\uffff']) {
    const slow = (await requiredOnly(a).list(prefix)).length;
    assertIs(await a.count(prefix), slow, `count(${JSON.stringify(prefix)})`);
  }
}

export async function getVersionsMatchesRequired(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  if (!a.getVersions) return;
  for (let i = 0; i < 5; i++) await a.putVersion(versionId(300 + i), sampleBytes(300 + i, 40 + i));
  const ids = [versionId(303), versionId(399), versionId(300), versionId(303), versionId(304)];
  const fast = await a.getVersions(ids);
  const slow = await readVersions(requiredOnly(a), ids);
  assertIs(fast.length, ids.length, 'getVersions answers one per id, duplicates included');
  slow.forEach((body, i) => {
    if (body === undefined) assertIs(fast[i], undefined, `getVersions[${i}] (absent)`);
    else assertBytes(fast[i], body, `getVersions[${i}]`);
  });
  assertIs((await a.getVersions([])).length, 0, 'getVersions([])');
}

function sampleCommits(): Commit[] {
  return [
    {
      versions: [
        [versionId(400), sampleBytes(400, 30)],
        [versionId(401), sampleBytes(401, 30)],
      ],
      entries: [
        { key: `v/notes/${versionId(400)}`, value: valueFor('400') },
        { key: `v/notes/${versionId(401)}`, value: valueFor('401') },
        { key: 'meta', value: valueFor('meta') },
      ],
      deleteVersions: [],
    },
    {
      versions: [[versionId(402), sampleBytes(402, 30)]],
      entries: [
        { key: `v/notes/${versionId(400)}`, value: undefined },
        { key: `v/notes/${versionId(402)}`, value: valueFor('402') },
        { key: 'meta', value: valueFor('meta', 2) },
      ],
      deleteVersions: [versionId(400)],
    },
    {
      versions: [],
      entries: [{ key: `v/notes/${versionId(401)}`, value: undefined }],
      deleteVersions: [versionId(401), versionId(499)],
    },
  ];
}

async function snapshot(a: StorageAdapter) {
  const entries = await readEntries(requiredOnly(a), '');
  const ids = [400, 401, 402, 499].map(versionId);
  return { entries, versions: await readVersions(requiredOnly(a), ids) };
}

export async function commitMatchesRequired(h: AdapterHarness): Promise<void> {
  const fast = await h.open('spaces/commit-fast');
  if (!fast.commit) return;
  const slow = requiredOnly(await h.open('spaces/commit-slow'));
  for (const [n, commit] of sampleCommits().entries()) {
    await fast.commit(commit);
    await writeCommit(slow, commit);
    const [x, y] = [await snapshot(fast), await snapshot(slow)];
    const what = `after commit ${n}`;
    assertStrings(
      x.entries.map(([k]) => k),
      y.entries.map(([k]) => k),
      `${what}: keys`,
    );
    for (const [i, [k, v]] of y.entries.entries())
      assertBytes(x.entries[i]![1], v, `${what}: ${k}`);
    y.versions.forEach((body, i) => {
      if (body === undefined) assertIs(x.versions[i], undefined, `${what}: version ${i} absent`);
      else assertBytes(x.versions[i], body, `${what}: version ${i}`);
    });
  }
}

/**
 * Without `commit`: versions, then the entries, then the version deletes, each landed before
 * the next starts, so at every step each index entry names a version that is there.
 */
export async function writeOrderWithoutCommit(h: AdapterHarness): Promise<void> {
  const inner = await h.open();
  const log: string[] = [];
  const problems: string[] = [];
  const anyValue = { checkValue: () => true };
  const step = async (name: string, write: () => Promise<void>) => {
    log.push(name);
    await write();
    const report = await checkStoreIntegrity(requiredOnly(inner), anyValue);
    problems.push(...report.problems.map((p) => `after ${name}: ${p}`));
  };
  const recorder: StorageAdapter = {
    ...requiredOnly(inner),
    batch: (writes) => step('batch', () => inner.batch(writes)),
    putVersion: (id, body) => step('putVersion', () => inner.putVersion(id, body)),
    deleteVersion: (id) => step('deleteVersion', () => inner.deleteVersion(id)),
  };
  for (const commit of sampleCommits()) await writeCommit(recorder, commit);
  if (problems.length > 0) fail(problems.join('; '));
  assertStrings(
    log,
    [
      'putVersion',
      'putVersion',
      'batch',
      'putVersion',
      'batch',
      'deleteVersion',
      'batch',
      'deleteVersion',
      'deleteVersion',
    ],
    'write order without commit',
  );
  const report = await checkStoreIntegrity(inner, anyValue);
  assertIs(report.versions, 1, 'versions the index names after the commits');
}

/**
 * `unnamedFiles`, where present, answers as the listings do, and both give the files with a
 * list that no `y/` entry with its `x/` entry names (spec 05 §16.6.4).
 */
export async function unnamedFilesMatchesRequired(h: AdapterHarness): Promise<void> {
  const a = await h.open();
  const id = (n: number) => n.toString(16).padStart(64, '0');
  const [named, superseded, bare, noList, twice] = [1, 2, 3, 4, 5].map(id) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const v = (n: number) => versionId(700 + n);
  const one = new Uint8Array([1]);
  await a.batch([
    ...[named, superseded, bare, twice].map((f) => ({ key: `f/${f}/list`, value: one })),
    { key: `f/${noList}/0`, value: one },
    { key: `f/${bare}/0`, value: one },
    // Named through a head: its `x/` is there.
    { key: `y/${named}/app.a/r1/${v(1)}`, value: one },
    { key: `x/app.a/r1/${v(1)}`, value: one },
    // Named only through a version since superseded (no `x/`).
    { key: `y/${superseded}/app.a/r2/${v(2)}`, value: one },
    // Named twice, once through a head.
    { key: `y/${twice}/app.a/r3/${v(3)}`, value: one },
    { key: `y/${twice}/app.b/r4/${v(4)}`, value: one },
    { key: `x/app.b/r4/${v(4)}`, value: one },
    // An `x/` of another file's version names nothing of `bare`.
    { key: `x/app.a/r2/${v(9)}`, value: one },
  ]);
  const expected = [superseded, bare].sort();
  assertStrings(await unnamedFiles(requiredOnly(a)), expected, 'unnamed files, from listings');
  if (a.unnamedFiles) assertStrings(await a.unnamedFiles(), expected, 'unnamedFiles()');
}
