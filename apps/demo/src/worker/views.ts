/**
 * Reading record bodies written by anyone in the space: a body that doesn't have the shape
 * this app writes is left out, never trusted. Pictures and profiles are `@minca/std`'s.
 */
import type { FileRef, MincaRecord } from '@minca/core';
import {
  accountOf,
  isFields,
  type Profile,
  readImage,
  readProfile,
  type StdImage,
} from '@minca/std';
import type { FileView, PictureView, PostView, ProfileView, VideoView } from '../protocol.js';
import { type PostVideo, readVideo } from './video-body.js';

export const POSTS = 'app.post';
export const SPACE_ABOUT = 'app.space';
/** The record id of the space's name in {@link SPACE_ABOUT}. */
export const ABOUT_ID = 'about';
const MAX_TEXT = 10_000;
export const MAX_SPACE_NAME = 80;

const fileView = (ref: FileRef, whole: ReadonlySet<string>): FileView => ({
  id: ref.$file,
  size: ref.size,
  whole: whole.has(ref.$file),
});

/** `whole`: ids of the files this device holds whole. */
export function toPicture(image: StdImage, whole: ReadonlySet<string>): PictureView {
  const view: PictureView = {
    mime: image.mime,
    width: image.width,
    height: image.height,
    file: fileView(image.file, whole),
  };
  if (image.placeholder) view.placeholder = image.placeholder;
  if (image.thumbnail) view.thumbnail = fileView(image.thumbnail, whole);
  if (image.alt) view.alt = image.alt;
  return view;
}

/** A post's photo, as its body names it. */
export function photoOf(record: MincaRecord): StdImage | undefined {
  return isFields(record.body) ? readImage(record.body.photo) : undefined;
}

/** A post's video, as its body names it. */
export function videoOf(record: MincaRecord): PostVideo | undefined {
  return isFields(record.body) ? readVideo(record.body.video) : undefined;
}

function toVideo(video: PostVideo, whole: ReadonlySet<string>): VideoView {
  const view: VideoView = {
    mime: video.mime,
    width: video.width,
    height: video.height,
    file: fileView(video.file, whole),
  };
  if (video.duration !== undefined) view.duration = video.duration;
  if (video.poster) view.poster = toPicture(video.poster, whole);
  return view;
}

/**
 * A post has text, a photo or a video, or text and one of them; a photo that is not a
 * `std.image`, or a video the demo doesn't play, leaves the post out. Its author is the
 * account its writer key writes for (`writerAccounts`).
 */
export function toPost(
  record: MincaRecord,
  whole: ReadonlySet<string>,
  accounts: ReadonlyMap<string, string>,
): PostView | undefined {
  const body = record.body;
  if (!isFields(body) || typeof body.text !== 'string') return undefined;
  const post: PostView = {
    id: record.id,
    author: accountOf(accounts, record.author),
    at: record.timestamp,
    text: body.text.slice(0, MAX_TEXT),
  };
  if (body.photo !== undefined) {
    const photo = readImage(body.photo);
    if (!photo) return undefined;
    post.photo = toPicture(photo, whole);
  }
  if (body.video !== undefined) {
    const video = readVideo(body.video);
    if (!video) return undefined;
    post.video = toVideo(video, whole);
  }
  if (!post.text.trim() && !post.photo && !post.video) return undefined;
  return post;
}

export function toProfile(profile: Profile, whole: ReadonlySet<string>): ProfileView {
  const view: ProfileView = { did: profile.did, name: profile.name };
  if (profile.avatar) view.avatar = toPicture(profile.avatar, whole);
  return view;
}

export { readProfile };

/** The space's name, as its `app.space` record says, or a stand-in. */
export function spaceName(record: MincaRecord | undefined): string {
  const name = isFields(record?.body) ? record.body.name : undefined;
  return typeof name === 'string' && name.trim() ? name.trim().slice(0, MAX_SPACE_NAME) : 'A space';
}
