/**
 * A video the person picked, made ready to post: its size and length as the browser reads them,
 * and a poster, a frame drawn to a canvas and kept as a small `std.image` (with its ThumbHash),
 * so a post shows a picture before any of the video is here. The file itself goes to the worker
 * as it is: the tab never reads its bytes.
 */
import { prepareImage } from '@minca/std/browser';
import type { NewVideo } from '../protocol.js';

/** The poster's longest side, px: small, so every device fetches it ahead. */
const POSTER_EDGE = 640;
/** How long the browser has to read the video's first frames, ms. */
const READ_MS = 20_000;

/** Resolves at `event`; rejects when the video doesn't load, or takes too long. */
function once(video: HTMLVideoElement, event: 'loadeddata' | 'seeked'): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      video.removeEventListener(event, ok);
      video.removeEventListener('error', failed);
      if (error) reject(error);
      else resolve();
    };
    const ok = () => done();
    const failed = () =>
      done(new TypeError('this browser cannot play this video: try MP4 (H.264) or WebM'));
    const timer = setTimeout(() => done(new TypeError('the video took too long to read')), READ_MS);
    video.addEventListener(event, ok);
    video.addEventListener('error', failed);
  });
}

export async function prepareVideo(file: File): Promise<NewVideo> {
  if (file.type !== 'video/mp4' && file.type !== 'video/webm')
    throw new TypeError(`${file.type || 'this file'} is not an MP4 or WebM video`);
  const url = URL.createObjectURL(file);
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.preload = 'auto';
  try {
    const loaded = once(video, 'loadeddata');
    video.src = url;
    await loaded;
    const { videoWidth: width, videoHeight: height } = video;
    if (!width || !height) throw new TypeError('this video has no picture');
    const duration = Number.isFinite(video.duration)
      ? Math.round(video.duration * 1000)
      : undefined;
    // A frame a little in: the very first is often black.
    const seeked = once(video, 'seeked');
    video.currentTime = Math.min(1, (duration ?? 0) / 10_000);
    await seeked;
    const scale = Math.min(1, POSTER_EDGE / Math.max(width, height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
    const frame = await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob(
        (b) => (b ? resolve(b) : reject(new TypeError('the poster did not encode'))),
        'image/jpeg',
        0.8,
      ),
    );
    const poster = await prepareImage(frame, { thumbnail: false });
    return {
      file,
      name: file.name || 'video',
      mime: file.type,
      width,
      height,
      ...(duration !== undefined ? { duration } : {}),
      poster,
    };
  } finally {
    video.removeAttribute('src');
    video.load();
    URL.revokeObjectURL(url);
  }
}
