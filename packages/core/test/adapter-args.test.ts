import { describe, expect, it } from 'vitest';
import { assertCommit, assertVersionKey, assertWrites } from '../src/adapter-args.js';

describe('adapter argument checks', () => {
  it('let good calls through and name what is wrong with bad ones', () => {
    const id = 'ab'.repeat(32);
    expect(() =>
      assertWrites([
        { key: 'a', value: new Uint8Array(1) },
        { key: 'b', value: undefined },
      ]),
    ).not.toThrow();
    expect(() =>
      assertCommit({ versions: [[id, new Uint8Array(1)]], entries: [], deleteVersions: [id] }),
    ).not.toThrow();
    expect(() => assertVersionKey('AB'.repeat(32))).toThrow(/64 lowercase hex/);
    expect(() => assertWrites('nope')).toThrow(/must be an array/);
    expect(() => assertWrites([{ key: 1 }])).toThrow(/string key/);
    expect(() => assertWrites([{ key: 'a', value: 'text' }])).toThrow(/Uint8Array/);
    expect(() =>
      assertCommit({ versions: [[id, 'body']], entries: [], deleteVersions: [] }),
    ).toThrow(/body/);
    expect(() => assertCommit({ versions: [id], entries: [], deleteVersions: [] })).toThrow(/pair/);
    expect(() => assertCommit(null)).toThrow(/object/);
    const noColons = (key: string) => {
      if (key.includes(':')) throw new TypeError('no colons here');
    };
    expect(() => assertWrites([{ key: 'a:b', value: undefined }], noColons)).toThrow(/no colons/);
    expect(() =>
      assertCommit(
        { versions: [], entries: [{ key: 'a:b', value: undefined }], deleteVersions: [] },
        noColons,
      ),
    ).toThrow(/no colons/);
  });
});
