import { describe, expect, it } from 'vitest';
import type { StorageAdapter } from '../src/adapter.ts';
import { checkStoreIntegrity, isCheckedValue, makeCheckedValue } from '../src/testing/index.ts';
import { fakeStores } from './fake-adapter.ts';

const id = (n: number) => n.toString(16).padStart(64, '0');

describe('checked values', () => {
  it('check whole, at every size from the smallest', () => {
    for (const size of [12, 13, 40, 1000, 256 * 1024]) {
      const value = makeCheckedValue('seed', size);
      expect(value).toHaveLength(size);
      expect(isCheckedValue(value)).toBe(true);
    }
  });

  it('are the same for one seed and size, and differ otherwise', () => {
    expect(makeCheckedValue('a', 100)).toEqual(makeCheckedValue('a', 100));
    expect(makeCheckedValue('a', 100)).not.toEqual(makeCheckedValue('b', 100));
    expect(makeCheckedValue('a', 100).subarray(0, 50)).not.toEqual(
      makeCheckedValue('a', 101).subarray(0, 50),
    );
  });

  it('fail when torn: cut short, grown, a byte changed, zeroed, mixed with another', () => {
    const value = makeCheckedValue('x', 200);
    const other = makeCheckedValue('y', 200);
    const flipped = value.slice();
    flipped[100]! ^= 1;
    const mixed = value.slice();
    mixed.set(other.subarray(100), 100);
    const grown = new Uint8Array(201);
    grown.set(value);
    for (const torn of [
      value.subarray(0, 199),
      value.subarray(0, 11),
      grown,
      flipped,
      new Uint8Array(200),
      mixed,
    ]) {
      expect(isCheckedValue(torn)).toBe(false);
    }
    expect(isCheckedValue(new Uint8Array())).toBe(false);
  });

  it('refuse a size below the smallest', () => {
    expect(() => makeCheckedValue('x', 11)).toThrow(RangeError);
    expect(() => makeCheckedValue('x', 1.5)).toThrow(RangeError);
  });
});

describe('checkStoreIntegrity', () => {
  async function store(): Promise<StorageAdapter> {
    return fakeStores().open('spaces/a');
  }

  it('passes a whole store, counting entries and versions', async () => {
    const a = await store();
    await a.putVersion(id(1), makeCheckedValue('body1', 50));
    await a.putVersion(id(2), makeCheckedValue('body2', 50));
    await a.batch([
      { key: `v/notes/${id(1)}`, value: makeCheckedValue('i1', 20) },
      { key: `v/notes/${id(2)}`, value: makeCheckedValue('i2', 20) },
      { key: `v/tasks/${id(2)}`, value: makeCheckedValue('i3', 20) },
      { key: 't/x', value: makeCheckedValue('t', 20) },
      { key: 'meta', value: new Uint8Array([1]) },
    ]);
    expect(await checkStoreIntegrity(a)).toEqual({
      ok: true,
      problems: [],
      entries: 5,
      versions: 2,
    });
  });

  it('reports an index entry naming a missing version', async () => {
    const a = await store();
    await a.batch([{ key: `v/notes/${id(1)}`, value: makeCheckedValue('i1', 20) }]);
    const report = await checkStoreIntegrity(a);
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([`"v/notes/${id(1)}" names a missing version`]);
  });

  it('reports torn values and torn bodies', async () => {
    const a = await store();
    const body = makeCheckedValue('b', 50);
    await a.putVersion(id(1), body.subarray(0, 49));
    await a.batch([
      { key: `v/notes/${id(1)}`, value: makeCheckedValue('i', 20) },
      { key: 't/x', value: new Uint8Array(20) },
    ]);
    const report = await checkStoreIntegrity(a);
    expect(report.problems).toEqual(['torn value at "t/x"', `torn version body ${id(1)}`]);
    expect(report.versions).toBe(1);
  });

  it('reports a v/ key that names no version', async () => {
    const a = await store();
    await a.batch([{ key: 'v/notes/not-an-id', value: makeCheckedValue('i', 20) }]);
    expect((await checkStoreIntegrity(a)).problems).toEqual([
      'index key "v/notes/not-an-id" does not name a version',
    ]);
  });

  it('uses checkValue when given, for entries and bodies', async () => {
    const a = await store();
    await a.putVersion(id(1), new Uint8Array([9]));
    await a.batch([
      { key: `v/c/${id(1)}`, value: new Uint8Array([1]) },
      { key: 'other', value: new Uint8Array([2]) },
    ]);
    const seen: Array<[string, number]> = [];
    const report = await checkStoreIntegrity(a, {
      checkValue: (key, value) => {
        seen.push([key, value[0]!]);
        return value[0] !== 2;
      },
    });
    expect(report.problems).toEqual(['torn value at "other"']);
    expect(seen).toContainEqual([`v/c/${id(1)}`, 9]);
  });

  it('reports a get that fails, an unsorted listing and a list that fails, without throwing', async () => {
    const a = await store();
    await a.batch([
      { key: 'a', value: new Uint8Array() },
      { key: 'b', value: new Uint8Array() },
    ]);
    const failing: StorageAdapter = {
      ...a,
      list: async () => ['b', 'a'],
      get: async (key) => {
        if (key === 'a') throw new Error('disk says no');
        return a.get(key);
      },
    };
    const report = await checkStoreIntegrity(failing);
    expect(report.problems).toEqual([
      'list is not sorted and unique at "a"',
      'get("a") failed: Error: disk says no',
    ]);
    expect(report.entries).toBe(1);
    const noList = await checkStoreIntegrity({
      ...a,
      list: async () => {
        throw new Error('gone');
      },
    });
    expect(noList).toEqual({
      ok: false,
      problems: ["list('') failed: Error: gone"],
      entries: 0,
      versions: 0,
    });
  });
});
