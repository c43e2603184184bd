/**
 * A file read by byte range, as the service worker's media reads need it: bytes `[start, end)`
 * in pieces, from `records.openFile`, which reads only the chunks covering them, fetching the
 * ones not here in order of need (spec 05 §16.6.8).
 */
import type { FileRef, MincaNode } from '@minca/core';

export interface RangeFile {
  size: number;
  mime: string;
  /** The bytes `[start, end)`, one piece (at most a 256 KiB chunk) at a time, in order. */
  read(start: number, end: number): AsyncIterator<Uint8Array>;
  /** Lets go of the file (it may be dropped for the device's limits again). */
  close(): Promise<void>;
}

/** Opens the file `ref` of `space` for reading by range. */
export async function openRange(
  node: MincaNode,
  space: string,
  ref: FileRef,
  mime: string,
): Promise<RangeFile> {
  const file = await node.records.openFile(space, ref);
  return {
    size: file.size,
    mime,
    read: (start, end) => file.chunks({ offset: start, length: end - start }),
    close: () => file.close(),
  };
}
