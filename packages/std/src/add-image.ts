/** Adding a prepared picture to a space: its file, and its thumbnail's, then the std.image. */
import type { MincaNode } from '@minca/core';
import type { StdImage } from './image.js';

/** A picture ready to add: its bytes as they will be kept, and what describes them. */
export interface PreparedImage {
  mime: string;
  width: number;
  height: number;
  bytes: Uint8Array;
  placeholder?: Uint8Array;
  /** A small JPEG of it (see `StdImage.thumbnail`). */
  thumbnail?: Uint8Array;
  alt?: string;
}

/**
 * Adds `image` (and its thumbnail) as files in `space` and gives the {@link StdImage} to put in
 * a body. `name` is the file's name, as `addFile` takes it.
 */
export async function addImage(
  node: { records: Pick<MincaNode['records'], 'addFile'> },
  space: string,
  image: PreparedImage,
  name?: string,
): Promise<StdImage> {
  const file = await node.records.addFile(space, image.bytes, {
    mime: image.mime,
    ...(name ? { name } : {}),
  });
  const out: StdImage = { mime: image.mime, width: image.width, height: image.height, file };
  if (image.placeholder) out.placeholder = image.placeholder;
  if (image.thumbnail) {
    out.thumbnail = await node.records.addFile(space, image.thumbnail, { mime: 'image/jpeg' });
  }
  if (image.alt) out.alt = image.alt;
  return out;
}
