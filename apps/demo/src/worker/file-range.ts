/**
 * A file read by byte range, as the service worker's media reads need it: bytes `[start, end)`
 * in pieces, fetching only the chunks that cover them, in order of need.
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
  const records = node.records as MincaNode['records'] & Partial<RangeApi>;
  if (!records.openFile) return wholeFile(node, space, ref, mime);
  const file = await records.openFile(space, ref);
  return {
    size: file.size,
    mime,
    read: (start, end) => file.chunks({ offset: start, length: end - start }),
    close: () => file.close(),
  };
}

/** `records.openFile`, as the streams work gives it (not on this branch's core yet). */
interface RangeApi {
  openFile(
    space: string,
    ref: FileRef,
  ): Promise<{
    size: number;
    chunks(range: { offset: number; length: number }): AsyncIterator<Uint8Array>;
    close(): Promise<void>;
  }>;
}

const PIECE = 256 * 1024;

/** Stand-in until core reads by range: the whole file, read once, given in pieces. */
function wholeFile(node: MincaNode, space: string, ref: FileRef, mime: string): RangeFile {
  return {
    size: ref.size,
    mime,
    async *read(start, end) {
      const bytes = await node.records.readFile(space, ref);
      for (let at = start; at < end; at += PIECE) yield bytes.slice(at, Math.min(end, at + PIECE));
    },
    close: async () => undefined,
  };
}
