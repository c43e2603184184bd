/**
 * `std.image`: a picture kept in a file, with what a reader shows before the file is here
 * (spec 05 §17.1). It is a value inside a body (a post's photo, a profile's avatar), not a
 * collection of its own.
 */
import { type FileRef, isFileRef } from '@minca/core';
import { thumbHashToDataURL } from 'thumbhash';
import { type Fields, isFields, isText, isWholeIn } from './fields.js';

/** The longest side of a picture, in pixels. */
export const MAX_IMAGE_EDGE = 65_535;
/** A ThumbHash is at most 25 bytes; anything past this is not one. */
export const MAX_PLACEHOLDER_BYTES = 64;
/** The longest side of a {@link StdImage.thumbnail}, in pixels. */
export const THUMBNAIL_EDGE = 320;
export const MAX_ALT = 1_000;
const MIME = /^image\/[a-z0-9][a-z0-9.+-]{0,63}$/;

/** A picture: the shape `std.image` names. */
export interface StdImage {
  /** `image/…`: how to show `file`. */
  mime: string;
  /** The picture's size in `file`, in pixels. */
  width: number;
  height: number;
  /** The picture itself. */
  file: FileRef;
  /** A ThumbHash of it, shown at once, before any file is here. */
  placeholder?: Uint8Array;
  /**
   * A small JPEG of it, at most {@link THUMBNAIL_EDGE} px on its long side, in a file of its own:
   * small, so a device that fetches only small files ahead still shows the picture.
   */
  thumbnail?: FileRef;
  /** What the picture shows, for whoever cannot see it. */
  alt?: string;
}

/**
 * The {@link StdImage} in `value`, or `undefined` when `value` is not one. A field that is there
 * must be valid; fields this version doesn't know are ignored, so later ones can add some.
 */
export function readImage(value: unknown): StdImage | undefined {
  if (!isFields(value)) return undefined;
  const { mime, width, height, file, placeholder, thumbnail, alt } = value;
  if (typeof mime !== 'string' || !MIME.test(mime)) return undefined;
  if (!isWholeIn(width, 1, MAX_IMAGE_EDGE) || !isWholeIn(height, 1, MAX_IMAGE_EDGE))
    return undefined;
  if (!isFileRef(file)) return undefined;
  const image: StdImage = { mime, width, height, file };
  if (placeholder !== undefined) {
    if (!(placeholder instanceof Uint8Array)) return undefined;
    if (placeholder.length < 5 || placeholder.length > MAX_PLACEHOLDER_BYTES) return undefined;
    image.placeholder = placeholder;
  }
  if (thumbnail !== undefined) {
    if (!isFileRef(thumbnail)) return undefined;
    image.thumbnail = thumbnail;
  }
  if (alt !== undefined) {
    if (typeof alt !== 'string' || alt.length > MAX_ALT) return undefined;
    image.alt = alt;
  }
  return image;
}

/** `image` as a body value, after checking it as a reader would: a `TypeError` otherwise. */
export function imageBody(image: StdImage): Fields {
  const checked = readImage(image);
  if (!checked) throw new TypeError('not a std.image: see spec 05 §17.1');
  const body: Fields = {
    mime: checked.mime,
    width: checked.width,
    height: checked.height,
    file: checked.file,
  };
  if (checked.placeholder) body.placeholder = checked.placeholder;
  if (checked.thumbnail) body.thumbnail = checked.thumbnail;
  if (isText(checked.alt, MAX_ALT)) body.alt = checked.alt;
  return body;
}

/**
 * The placeholder as a `data:image/png` URL, or `undefined` when there is none or it doesn't
 * decode. Pure JavaScript: it needs no DOM.
 */
export function placeholderUrl(image: Pick<StdImage, 'placeholder'>): string | undefined {
  if (!image.placeholder) return undefined;
  try {
    return thumbHashToDataURL(image.placeholder);
  } catch {
    return undefined;
  }
}
