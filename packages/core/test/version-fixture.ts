/** What the version tests share: drafts to sign, a member's posts, and the code a call fails with. */
import { randomId } from '../src/ids.js';
import type { SigningKey } from '../src/keys.js';
import { createVersions, type VersionDraft } from '../src/version.js';

/** A maker of drafts: a small post, with `base` over the defaults and each call's `over` last. */
export const drafts =
  (base: Partial<VersionDraft> = {}) =>
  (over: Partial<VersionDraft> = {}): VersionDraft => ({
    space: randomId(),
    collection: 'app.post',
    record: randomId(),
    supersedes: [],
    timestamp: 1_700_000_000_000,
    files: [],
    body: { text: 'hello' },
    ...base,
    ...over,
  });

/** `count` signed versions of `app.post` in `space`, records `r<from>`…, as a member writes them. */
export function posts(
  space: string,
  spaceKey: Uint8Array,
  key: SigningKey,
  count: number,
  from = 0,
) {
  return createVersions(
    Array.from({ length: count }, (_, i) => ({
      space,
      collection: 'app.post',
      record: `r${from + i}`,
      supersedes: [],
      timestamp: 1_700_000_000_000 + from + i,
      files: [],
      body: { i: from + i },
    })),
    spaceKey,
    key,
  );
}

export { errorCode } from './error-code.js';
