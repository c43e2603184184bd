/// <reference lib="dom" />
/** The key range holding exactly the keys that start with a prefix. */

/** The `IDBKeyRange` constructor's static side, as the platform (or fake-indexeddb) has it. */
export type KeyRangeFactory = Pick<typeof IDBKeyRange, 'bound' | 'lowerBound'>;

/**
 * The range of every key starting with `prefix`, or `undefined` (every key) for `''`.
 *
 * The obvious bound, `[prefix, prefix + "\uffff"]`, misses keys such as `a\uffff\uffff`, which
 * start with `a` but sort after `a\uffff`. So the upper bound is the prefix's successor,
 * exclusive: drop its trailing `\uffff` code units, then add one to the last code unit left
 * (`a` → `b`, `a\uffff` → `b`). Every key in `[prefix, successor)` starts with the prefix, and
 * every key that does is in it. A prefix of only `\uffff`s has no successor: it gets no upper
 * bound. Keys compare by UTF-16 code units, so astral characters (surrogate pairs,
 * `\ud800`–`\udfff`) sort below `\uffff` and fall inside like any other.
 */
export function prefixRange(keyRange: KeyRangeFactory, prefix: string): IDBKeyRange | undefined {
  if (prefix === '') return undefined;
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0xffff) end--;
  if (end === 0) return keyRange.lowerBound(prefix);
  const successor = prefix.slice(0, end - 1) + String.fromCharCode(prefix.charCodeAt(end - 1) + 1);
  return keyRange.bound(prefix, successor, false, true);
}
