/**
 * A FileRef is how a record body points at a file: put it anywhere in a body, and the version
 * names the file (spec 05 §16.6). Reading and writing files themselves is in the files module.
 */
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

/** Every distinct file a body points at, in the order first found. */
export function fileIdsIn(body: unknown, found = new Set<string>()): string[] {
  if (isFileRef(body)) found.add(body.$file);
  else if (Array.isArray(body)) for (const item of body) fileIdsIn(item, found);
  else if (body !== null && typeof body === 'object' && !(body instanceof Uint8Array)) {
    for (const item of Object.values(body)) fileIdsIn(item, found);
  }
  return [...found];
}
