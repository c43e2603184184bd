/**
 * Small pictures made in the browser: a photo's thumbnail and an avatar, as JPEG bytes of at
 * most `edge` px on the long side, resized with OffscreenCanvas (or a canvas where it's missing).
 */
import type { ImageView } from './protocol.js';

export async function thumbnailOf(file: Blob, edge: number): Promise<ImageView> {
  if (!file.type.startsWith('image/'))
    throw new TypeError(`${file.type || 'this file'} is not a picture`);
  const bitmap = await createImageBitmap(file);
  try {
    const scale = Math.min(1, edge / Math.max(bitmap.width, bitmap.height));
    const w = Math.max(1, Math.round(bitmap.width * scale));
    const h = Math.max(1, Math.round(bitmap.height * scale));
    let blob: Blob;
    if (typeof OffscreenCanvas === 'function') {
      const canvas = new OffscreenCanvas(w, h);
      canvas.getContext('2d')!.drawImage(bitmap, 0, 0, w, h);
      blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.75 });
    } else {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      canvas.getContext('2d')!.drawImage(bitmap, 0, 0, w, h);
      blob = await new Promise<Blob>((resolve, reject) =>
        canvas.toBlob(
          (b) => (b ? resolve(b) : reject(new Error('no thumbnail'))),
          'image/jpeg',
          0.75,
        ),
      );
    }
    return {
      mime: file.type,
      width: bitmap.width,
      height: bitmap.height,
      thumbnail: new Uint8Array(await blob.arrayBuffer()),
    };
  } finally {
    bitmap.close();
  }
}

/** An object URL for a picture's thumbnail; revoke it when the picture goes. */
export const thumbnailUrl = (image: ImageView) =>
  URL.createObjectURL(new Blob([image.thumbnail.slice()], { type: 'image/jpeg' }));
