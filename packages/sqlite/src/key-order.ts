/**
 * Entry keys between JavaScript and SQLite. Keys are TEXT in a UTF-8 database, and SQLite's
 * BINARY collation compares their UTF-8 bytes: code point order. The contract sorts by UTF-16
 * code units, which differs only between astral characters (surrogate pairs, below U+E000 in
 * code units) and U+E000–U+FFFF. So a prefix becomes a range in code point order, and a listing
 * is sorted again in JavaScript when the two orders disagree.
 */
import { MincaError } from '@minca/core';

/** Any character that needs a closer look: U+0000 or half of a surrogate pair. */
const SUSPECT = /[\0\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const HIGH_SURROGATE_AT_END = /(?<![\ud800-\udbff])[\ud800-\udbff]$/;

function quote(key: string): string {
  return JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);
}

/**
 * Refuses a key SQLite cannot hold as given: U+0000 (C strings end there) and lone surrogates
 * (UTF-8 has no encoding for them; drivers would store U+FFFD instead).
 */
export function assertKey(key: unknown, what = 'key'): asserts key is string {
  if (typeof key !== 'string') throw new TypeError(`a ${what} must be a string`);
  if (!SUSPECT.test(key)) return;
  if (key.includes('\0')) {
    throw new MincaError('invalid_name', `the ${what} ${quote(key)} holds U+0000`);
  }
  if (LONE_SURROGATE.test(key)) {
    throw new MincaError('invalid_name', `the ${what} ${quote(key)} holds a lone surrogate`);
  }
}

/** The keys `list(prefix)` answers, as a range of SQLite TEXT. */
export interface KeyRange {
  /** Keys `>=` this. */
  from: string;
  /** Keys `<` this; absent when nothing sorts after every key starting with `from`. */
  to?: string;
  /** When set, only keys starting with it are wanted (the range is wider). */
  startsWith?: string;
}

/**
 * The range of every key starting with `prefix`: from the prefix to its successor in code point
 * order (the last code point plus one, skipping the surrogate block, carrying past U+10FFFF).
 * A prefix may end in a high surrogate, since a key's surrogate pair can start with it: the
 * range is then that of the prefix before it, filtered.
 */
export function prefixRange(prefix: unknown): KeyRange {
  if (typeof prefix !== 'string') throw new TypeError('a prefix must be a string');
  if (HIGH_SURROGATE_AT_END.test(prefix)) {
    return { ...prefixRange(prefix.slice(0, -1)), startsWith: prefix };
  }
  assertKey(prefix, 'prefix');
  let head = prefix;
  while (head.length > 0) {
    // The prefix is well-formed here, so a low surrogate at its end closes a pair.
    const width = isLowSurrogate(head.charCodeAt(head.length - 1)) ? 2 : 1;
    const last = head.codePointAt(head.length - width)!;
    head = head.slice(0, -width);
    if (last < 0x10ffff) {
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return { from: prefix, to: head + String.fromCodePoint(next) };
    }
  }
  return { from: prefix };
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Keys from SQLite (code point order) in code unit order; sorts only when the orders differ. */
export function sortKeys(keys: string[]): string[] {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return keys.sort();
  return keys;
}

/** Entries from SQLite in code unit order of their keys; sorts only when the orders differ. */
export function sortEntries<T>(entries: Array<[string, T]>): Array<[string, T]> {
  for (let i = 1; i < entries.length; i++) {
    if (entries[i - 1]![0] > entries[i]![0]) {
      return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }
  return entries;
}
