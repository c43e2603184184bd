/**
 * What the crash test's writer writes, as a pure function of (run, n), so the test knows what
 * each acknowledged write must have left: commit n of a run puts one to three versions with
 * their `v/notes/<id>` entries (checked values of varied sizes), overwrites `meta/last`, and
 * deletes the versions and entries commit n - 5 put, to exercise deletes.
 */
import { createHash } from 'node:crypto';
import type { Commit } from '@minca/core';
import { makeCheckedValue } from '@minca/core/testing';

export const CRASH_STORE = 'spaces/crash';
/** Commit n deletes what commit n - DELETE_LAG put. */
export const DELETE_LAG = 5;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function versionCount(run: number, n: number): number {
  return 1 + ((run * 7 + n * 13) % 3);
}

/** The ids commit n of `run` puts. */
export function idsOf(run: number, n: number): string[] {
  return Array.from({ length: versionCount(run, n) }, (_, j) =>
    sha256(`${run}:${n}:${j}`).toString('hex'),
  );
}

/** Sizes from 64 B to about 48 KiB, so some commits spill into overflow pages. */
function sizeOf(seed: string): number {
  const h = sha256(seed);
  return 64 + (((h[0]! << 8) | h[1]!) % (48 * 1024));
}

export function checked(seed: string): Uint8Array {
  return makeCheckedValue(seed, sizeOf(seed));
}

export function indexKey(id: string): string {
  return `v/notes/${id}`;
}

export function commitFor(run: number, n: number): Commit {
  const ids = idsOf(run, n);
  const gone = n >= DELETE_LAG ? idsOf(run, n - DELETE_LAG) : [];
  return {
    versions: ids.map((id) => [id, checked(`body:${id}`)] as const),
    entries: [
      ...ids.map((id) => ({ key: indexKey(id), value: checked(`entry:${id}`) })),
      ...gone.map((id) => ({ key: indexKey(id), value: undefined })),
      { key: 'meta/last', value: checked(`last:${run}:${n}`) },
    ],
    deleteVersions: gone,
  };
}
