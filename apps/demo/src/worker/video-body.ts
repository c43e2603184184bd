/**
 * A post's video, as the demo writes it in `app.post` (`video`): the file, how to show it, and
 * a poster, a frame of it as a small `std.image` (spec 05 §17.1), so the post shows a picture
 * (first its ThumbHash placeholder) before any of the video is here. Read from anyone's body,
 * so checked as `readImage` checks a picture: a field that is there must be valid.
 */
import { type FileRef, isFileRef } from '@minca/core';
import { type Fields, isFields, MAX_IMAGE_EDGE, readImage, type StdImage } from '@minca/std';

/** What the demo plays: MP4 (with its index first, it plays soonest) and WebM. */
export const VIDEO_MIME = /^video\/(mp4|webm)$/;
/** A day, ms: longer is not a post's video. */
const MAX_DURATION_MS = 86_400_000;

export interface PostVideo {
  mime: string;
  width: number;
  height: number;
  /** ms, when known. */
  duration?: number;
  file: FileRef;
  poster?: StdImage;
}

const whole = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** The video in `value`, or `undefined` when it is not one the demo plays. */
export function readVideo(value: unknown): PostVideo | undefined {
  if (!isFields(value)) return undefined;
  const { mime, width, height, duration, file, poster } = value;
  if (typeof mime !== 'string' || !VIDEO_MIME.test(mime)) return undefined;
  if (!whole(width, 1, MAX_IMAGE_EDGE) || !whole(height, 1, MAX_IMAGE_EDGE)) return undefined;
  if (!isFileRef(file)) return undefined;
  const video: PostVideo = { mime, width, height, file };
  if (duration !== undefined) {
    if (!whole(duration, 0, MAX_DURATION_MS)) return undefined;
    video.duration = duration;
  }
  if (poster !== undefined) {
    const image = readImage(poster);
    if (!image) return undefined;
    video.poster = image;
  }
  return video;
}

/** `video` as a body value. */
export function videoBody(video: PostVideo, poster: Fields | undefined): Fields {
  const body: Fields = {
    mime: video.mime,
    width: video.width,
    height: video.height,
    file: video.file,
  };
  if (video.duration !== undefined) body.duration = video.duration;
  if (poster) body.poster = poster;
  if (!readVideo(body)) throw new TypeError('not a video the demo plays');
  return body;
}
