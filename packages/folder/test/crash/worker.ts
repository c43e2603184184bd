/**
 * The crash test's writer, bundled to `worker.mjs` by build-worker.ts and run as a child
 * process: it writes checked versions and index entries through writeCommit, forever, and
 * reports each write on stdout once it resolved. The parent SIGKILLs it at a random moment.
 *
 * stdout lines: `intent-delete <id>` before a write that deletes a version, `ack <id>…` after
 * a write of versions resolved, `ack-delete <id>` after a delete resolved.
 */
import { type EntryWrite, type StorageAdapter, writeCommit } from '@minca/core';
import { makeCheckedValue } from '@minca/core/testing';
import { directoryStores } from '../../src/node.ts';

const [dir, seed] = process.argv.slice(2) as [string, string];
const stores = directoryStores(dir, { sync: false });
const store = await stores.open('spaces/crash');

/** The store without its optional methods, so writeCommit takes its fallback path. */
function requiredOnly(a: StorageAdapter): StorageAdapter {
  return {
    get: (key) => a.get(key),
    list: (prefix) => a.list(prefix),
    batch: (writes) => a.batch(writes),
    getVersion: (id) => a.getVersion(id),
    putVersion: (id, body) => a.putVersion(id, body),
    deleteVersion: (id) => a.deleteVersion(id),
  };
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}

const written: string[] = [];
for (let i = 0; ; i++) {
  const count = 1 + (i % 6);
  const ids = Array.from({ length: count }, (_, j) => `${seed}${hex(i)}${hex(j)}`.padEnd(64, 'a'));
  const versions = ids.map(
    (id, j) => [id, makeCheckedValue(id, 40 + ((i * 7 + j) % 900))] as const,
  );
  const entries: EntryWrite[] = ids.map((id) => ({
    key: `v/notes/${id}`,
    value: makeCheckedValue(`v${id}`, 30),
  }));
  entries.push({ key: 'meta/last', value: makeCheckedValue(`m${i}`, 20) });
  // Written by every batch with one value: a batch half applied leaves them different.
  const pair = makeCheckedValue(`pair${i}`, 24);
  entries.push({ key: 'pair/a', value: pair }, { key: 'pair/b', value: pair });
  const deleteVersions: string[] = [];
  if (i % 4 === 3 && written.length > 0) {
    const gone = written.splice((i * 31) % written.length, 1)[0]!;
    process.stdout.write(`intent-delete ${gone}\n`);
    entries.push({ key: `v/notes/${gone}`, value: undefined });
    deleteVersions.push(gone);
  }
  // Half the writes take writeCommit's fallback: putVersion each, then one batch.
  const target = i % 2 === 0 ? store : requiredOnly(store);
  await writeCommit(target, { versions, entries, deleteVersions });
  process.stdout.write(`ack ${ids.join(' ')}\n`);
  for (const gone of deleteVersions) process.stdout.write(`ack-delete ${gone}\n`);
  written.push(...ids);
}
