/**
 * A FileRef is how a record body points at a file: put it anywhere in a body, and the version
 * names the file (spec 05 §16.6). Reading and writing files themselves is in the files module.
 */
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from './body.js';
import { VERSION_HEX } from './ids.js';

/** Points at a file from a record body. The body is sealed, so the key inside it is too. */
// A type, not an interface, so a FileRef fits in a record body's type as it is.
export type FileRef = {
  /** The file id: SHA-256 of its chunk list, as hex. */
  $file: string;
  /** The 32-byte key its chunks are sealed under. */
  key: Uint8Array;
  /** Its size in bytes, before sealing. */
  size: number;
  mime?: string;
  name?: string;
};

export function isFileRef(value: unknown): value is FileRef {
  if (value === null || typeof value !== 'object') return false;
  const ref = value as Partial<FileRef>;
  return (
    typeof ref.$file === 'string' &&
    VERSION_HEX.test(ref.$file) &&
    ref.key instanceof Uint8Array &&
    ref.key.length === 32 &&
    Number.isSafeInteger(ref.size) &&
    ref.size! >= 0
  );
}

/**
 * Every distinct file a body points at, in the order first found. It walks the body with a
 * stack of its own rather than recursing, and no further than a valid body can reach
 * ({@link MAX_BODY_DEPTH} deep, {@link MAX_BODY_BYTES} items, each at least a byte): past
 * that the body is one `assertBody` refuses, so a body nested 100,000 deep, or one that holds
 * itself, costs bounded time and never the call stack.
 */
export function fileIdsIn(body: unknown, found = new Set<string>()): string[] {
  const stack: Array<[unknown, number]> = [[body, 0]];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_BODY_BYTES) {
    const [value, depth] = stack.pop()!;
    if (isFileRef(value)) found.add(value.$file);
    else if (
      value !== null &&
      typeof value === 'object' &&
      !(value instanceof Uint8Array) &&
      depth < MAX_BODY_DEPTH
    ) {
      const items = Array.isArray(value) ? value : Object.values(value);
      if (stack.length + items.length > MAX_BODY_BYTES) break;
      // Last to first onto the stack, so the first item is looked at first.
      for (let i = items.length - 1; i >= 0; i--) stack.push([items[i], depth + 1]);
    }
  }
  return [...found];
}
