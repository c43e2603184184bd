/**
 * Pictures made in the browser (a window or a worker): resized with a canvas, with a ThumbHash
 * placeholder and a small thumbnail, ready for `addImage`. Needs `createImageBitmap` and
 * `OffscreenCanvas` (or a document's canvas).
 */
import { rgbaToThumbHash } from 'thumbhash';
import type { PreparedImage } from '../add-image.js';
import { THUMBNAIL_EDGE } from '../image.js';
import { AVATAR_EDGE } from '../profile.js';

/** Options of {@link prepareImage}. */
export interface PrepareImageOptions {
  /** Resize to at most this many px on the long side (a JPEG then). Default: keep the picture. */
  edge?: number;
  /** Make a thumbnail when the picture is larger than one. Default true. */
  thumbnail?: boolean;
  /** JPEG quality of what is resized, 0 to 1. Default 0.8. */
  quality?: number;
  alt?: string;
}

/** ThumbHash encodes pictures of at most 100 × 100 px. */
const HASH_EDGE = 100;
/** A picture this small in bytes and size needs no thumbnail of its own. */
const SMALL_BYTES = 64 * 1024;

type Canvas2D = OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D;

function canvas(
  width: number,
  height: number,
): {
  context: Canvas2D;
  jpeg(quality: number): Promise<Blob>;
} {
  if (typeof OffscreenCanvas === 'function') {
    const c = new OffscreenCanvas(width, height);
    return {
      context: c.getContext('2d')!,
      jpeg: (quality) => c.convertToBlob({ type: 'image/jpeg', quality }),
    };
  }
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  return {
    context: c.getContext('2d')!,
    jpeg: (quality) =>
      new Promise((resolve, reject) =>
        c.toBlob(
          (b) => (b ? resolve(b) : reject(new Error('the picture did not encode'))),
          'image/jpeg',
          quality,
        ),
      ),
  };
}

const fitWithin = (width: number, height: number, edge: number) => {
  const scale = Math.min(1, edge / Math.max(width, height));
  return { w: Math.max(1, Math.round(width * scale)), h: Math.max(1, Math.round(height * scale)) };
};

async function resized(bitmap: ImageBitmap, edge: number, quality: number) {
  const { w, h } = fitWithin(bitmap.width, bitmap.height, edge);
  const c = canvas(w, h);
  // JPEG has no transparency: what was transparent shows white, not black.
  c.context.fillStyle = '#fff';
  c.context.fillRect(0, 0, w, h);
  c.context.drawImage(bitmap, 0, 0, w, h);
  return {
    width: w,
    height: h,
    bytes: new Uint8Array(await (await c.jpeg(quality)).arrayBuffer()),
  };
}

function thumbHash(bitmap: ImageBitmap): Uint8Array {
  const { w, h } = fitWithin(bitmap.width, bitmap.height, HASH_EDGE);
  const c = canvas(w, h);
  c.context.drawImage(bitmap, 0, 0, w, h);
  return rgbaToThumbHash(w, h, c.context.getImageData(0, 0, w, h).data);
}

/**
 * `blob` (a picture the person picked) ready for `addImage`: its size, a ThumbHash
 * placeholder, a thumbnail of at most 320 px when it is larger, and, with `edge`, resized.
 * A `TypeError` for a file that is not a picture the browser can decode.
 */
export async function prepareImage(
  blob: Blob,
  options: PrepareImageOptions = {},
): Promise<PreparedImage> {
  if (!blob.type.startsWith('image/')) {
    throw new TypeError(`${blob.type || 'this file'} is not a picture`);
  }
  const bitmap = await createImageBitmap(blob).catch((error: unknown) => {
    throw new TypeError(`the picture could not be read: ${(error as Error).message}`);
  });
  try {
    const quality = options.quality ?? 0.8;
    const edge = options.edge;
    const image: PreparedImage =
      edge !== undefined && Math.max(bitmap.width, bitmap.height) > edge
        ? { mime: 'image/jpeg', ...(await resized(bitmap, edge, quality)) }
        : {
            mime: blob.type,
            width: bitmap.width,
            height: bitmap.height,
            bytes: new Uint8Array(await blob.arrayBuffer()),
          };
    image.placeholder = thumbHash(bitmap);
    const large =
      Math.max(image.width, image.height) > THUMBNAIL_EDGE || image.bytes.length > SMALL_BYTES;
    if ((options.thumbnail ?? true) && large) {
      image.thumbnail = (await resized(bitmap, THUMBNAIL_EDGE, 0.75)).bytes;
    }
    if (options.alt) image.alt = options.alt;
    return image;
  } finally {
    bitmap.close();
  }
}

/** An avatar: resized to at most 256 px before it is added, with a placeholder, no thumbnail. */
export const prepareAvatar = (blob: Blob): Promise<PreparedImage> =>
  prepareImage(blob, { edge: AVATAR_EDGE, thumbnail: false });
