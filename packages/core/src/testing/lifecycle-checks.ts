/** Checks across stores and restarts: paths are independent, and reopening keeps everything. */
import type { StorageAdapter } from '../adapter.js';
import type { AdapterHarness } from './adapter-harness.js';
import { assertBytes, assertIs, assertStrings } from './assert.js';
import { sampleBytes, valueFor, versionId } from './sample-bytes.js';

export async function storesAreIndependent(h: AdapterHarness): Promise<void> {
  const paths = ['spaces/a', 'spaces/ab', 'spaces/a.b', 'registry'];
  const stores: StorageAdapter[] = [];
  for (const path of paths) stores.push(await h.open(path));
  const id = versionId(500);
  for (const [i, a] of stores.entries()) {
    await a.batch([
      { key: 'shared', value: valueFor(paths[i]!) },
      { key: `only/${i}`, value: valueFor(paths[i]!) },
    ]);
    await a.putVersion(id, sampleBytes(500 + i, 20));
  }
  for (const [i, a] of stores.entries()) {
    const path = paths[i]!;
    assertBytes(await a.get('shared'), valueFor(path), `get in ${path}`);
    assertStrings(await a.list(''), [`only/${i}`, 'shared'], `list('') in ${path}`);
    assertBytes(await a.getVersion(id), sampleBytes(500 + i, 20), `getVersion in ${path}`);
  }
  await stores[0]!.batch([{ key: 'shared', value: undefined }]);
  await stores[0]!.deleteVersion(id);
  assertBytes(
    await stores[1]!.get('shared'),
    valueFor(paths[1]!),
    'a delete in spaces/a left spaces/ab alone',
  );
  assertBytes(
    await stores[1]!.getVersion(id),
    sampleBytes(501, 20),
    'deleteVersion in spaces/a left spaces/ab alone',
  );
  assertIs(await stores[0]!.get('shared'), undefined, 'the delete in spaces/a');
}

async function fill(a: StorageAdapter, tag: string): Promise<void> {
  await a.batch([
    { key: 'keep', value: valueFor(tag) },
    { key: 'gone', value: valueFor(tag) },
    { key: '日本/😀', value: valueFor(tag) },
    { key: 'big', value: sampleBytes(600, 300 * 1024) },
  ]);
  await a.batch([{ key: 'gone', value: undefined }]);
  await a.putVersion(versionId(600), sampleBytes(601, 1000));
  await a.putVersion(versionId(601), sampleBytes(602, 10));
  await a.deleteVersion(versionId(601));
}

async function expectFilled(a: StorageAdapter, tag: string, when: string): Promise<void> {
  assertStrings(await a.list(''), ['big', 'keep', '日本/😀'], `list('') ${when}`);
  assertBytes(await a.get('keep'), valueFor(tag), `get(keep) ${when}`);
  assertBytes(await a.get('日本/😀'), valueFor(tag), `get(日本/😀) ${when}`);
  assertBytes(await a.get('big'), sampleBytes(600, 300 * 1024), `get(big) ${when}`);
  assertIs(await a.get('gone'), undefined, `a deleted key ${when}`);
  assertBytes(await a.getVersion(versionId(600)), sampleBytes(601, 1000), `getVersion ${when}`);
  assertIs(await a.getVersion(versionId(601)), undefined, `a deleted version ${when}`);
}

export async function reopenKeepsEverything(h: AdapterHarness): Promise<void> {
  await fill(await h.open('spaces/a'), 'a');
  await fill(await h.open('spaces/ab'), 'ab');
  await h.restart();
  await expectFilled(await h.open('spaces/a'), 'a', 'after reopening');
  const ab = await h.open('spaces/ab');
  await expectFilled(ab, 'ab', 'after reopening (second store)');
  await ab.batch([{ key: 'later', value: valueFor('later') }]);
  await h.restart();
  assertBytes(
    await (await h.open('spaces/ab')).get('later'),
    valueFor('later'),
    'a write after the first reopen',
  );
  assertStrings(
    await (await h.open('spaces/fresh')).list(''),
    [],
    'a store never written is empty',
  );
}
