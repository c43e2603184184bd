/**
 * Reading record bodies written by anyone in the space: a body that doesn't have the shape
 * this app writes is left out, never trusted. Pictures and profiles are `@minca/std`'s.
 */
import type { BodyValue, FileRef, MincaRecord } from '@minca/core';
import { type Profile, readImage, readProfile, type StdImage } from '@minca/std';
import type { FileView, PictureView, PostView, ProfileView } from '../protocol.js';

export const POSTS = 'app.post';
export const SPACE_ABOUT = 'app.space';
/** The record id of the space's name in {@link SPACE_ABOUT}. */
export const ABOUT_ID = 'about';
const MAX_TEXT = 10_000;
export const MAX_SPACE_NAME = 80;

type Fields = { [key: string]: BodyValue };
const isFields = (value: unknown): value is Fields =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Uint8Array);

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

/** A post has text, a photo, or both; a photo that is not a `std.image` leaves the post out. */
export function toPost(record: MincaRecord, whole: ReadonlySet<string>): PostView | undefined {
  const body = record.body;
  if (!isFields(body) || typeof body.text !== 'string') return undefined;
  const post: PostView = {
    id: record.id,
    author: record.author,
    at: record.timestamp,
    text: body.text.slice(0, MAX_TEXT),
  };
  if (body.photo !== undefined) {
    const photo = readImage(body.photo);
    if (!photo) return undefined;
    post.photo = toPicture(photo, whole);
  }
  if (!post.text.trim() && !post.photo) return undefined;
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
