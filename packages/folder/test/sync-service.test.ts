/** The simulated sync service itself: what the data folder tests rely on it doing. */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { conflictOf } from '../src/conflict-names.ts';
import { SimulatedSyncService } from '../src/testing/sync-service.ts';
import { tempDir } from './temp-dir.ts';

let dir: string;
let teardown: () => Promise<void>;
beforeEach(async () => ({ dir, teardown } = await tempDir()));
afterEach(() => teardown());

const read = (path: string) => readFile(path, 'utf8').catch(() => undefined);

async function ticks(service: SimulatedSyncService, n: number) {
  for (let i = 0; i < n; i++) await service.tick();
}

it('carries new files, changes and deletes, after a delay, sometimes torn first', async () => {
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  await mkdir(join(a, 'x'), { recursive: true });
  await mkdir(b);
  const service = new SimulatedSyncService(a, b, {
    seed: 1,
    maxDelayTicks: 2,
    halfWrites: 1,
    conflictCopies: 0,
  });
  await writeFile(join(a, 'x', 'one.minca'), 'first version');
  await writeFile(join(a, 'x', 'skip.minca.0190.tmp'), 'still being written');
  let torn = false;
  for (let i = 0; i < 10 && (await read(join(b, 'x', 'one.minca'))) !== 'first version'; i++) {
    await service.tick();
    const seen = await read(join(b, 'x', 'one.minca'));
    if (seen !== undefined && seen !== 'first version') torn = true;
  }
  expect(torn).toBe(true);
  expect(await read(join(b, 'x', 'one.minca'))).toBe('first version');
  expect(await readdir(join(b, 'x'))).toEqual(['one.minca']);

  await writeFile(join(b, 'x', 'one.minca'), 'changed on b');
  await ticks(service, 10);
  await service.flush();
  expect(await read(join(a, 'x', 'one.minca'))).toBe('changed on b');
  await rm(join(a, 'x', 'one.minca'));
  await ticks(service, 10);
  expect(await read(join(b, 'x', 'one.minca'))).toBeUndefined();
  expect(service.counts.deletes).toBe(1);
});

it('keeps both sides of a change made on each, one as a conflict copy both services would name', async () => {
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  const names = new Set<string>();
  for (let seed = 1; seed <= 6; seed++) {
    await rm(a, { recursive: true, force: true });
    await rm(b, { recursive: true, force: true });
    await mkdir(a);
    await mkdir(b);
    const service = new SimulatedSyncService(a, b, { seed, halfWrites: 0, conflictCopies: 0 });
    await writeFile(join(a, 'f.minca'), 'base');
    await ticks(service, 5);
    await service.flush();
    await writeFile(join(a, 'f.minca'), 'from a');
    await writeFile(join(b, 'f.minca'), 'from b');
    await ticks(service, 5);
    await service.flush();
    await ticks(service, 5);
    for (const side of [a, b]) {
      const files = (await readdir(side)).sort();
      expect(files).toHaveLength(2);
      const copy = files.find((f) => f !== 'f.minca')!;
      expect(conflictOf(copy)).toBe('f.minca');
      names.add(copy.includes('sync-conflict') ? 'syncthing' : 'dropbox');
      const both = [await read(join(side, 'f.minca')), await read(join(side, copy))].sort();
      expect(both).toEqual(['from a', 'from b']);
    }
    expect(service.counts.conflicts).toBe(1);
  }
  expect(names).toEqual(new Set(['syncthing', 'dropbox']));
});

it('makes no conflict copy of a conflict copy: it arrives as it is, and of two changes one stays', async () => {
  const [a, b] = [join(dir, 'a'), join(dir, 'b')];
  await mkdir(a);
  await mkdir(b);
  // Every copy would arrive first as a conflict copy, were it not one already.
  const service = new SimulatedSyncService(a, b, { seed: 3, halfWrites: 0, conflictCopies: 1 });
  const copy = 'f.sync-conflict-20261202-101010-ABCDEFG.minca';
  await writeFile(join(a, copy), 'base');
  await ticks(service, 5);
  expect(await readdir(b)).toEqual([copy]);
  expect(service.counts.conflictCopies).toBe(0);
  await writeFile(join(a, copy), 'from a');
  await writeFile(join(b, copy), 'from b');
  await ticks(service, 5);
  await service.flush();
  await ticks(service, 5);
  for (const side of [a, b]) expect(await readdir(side)).toEqual([copy]);
  expect(await read(join(a, copy))).toBe(await read(join(b, copy)));
  expect(service.counts.conflicts).toBe(1);
});
