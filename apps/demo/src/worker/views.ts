/**
 * Reading record bodies written by anyone in the space: a body that doesn't have the shape
 * this app writes is left out, never trusted.
 */
import { type BodyValue, type FileRef, isFileRef, type MincaRecord } from '@minca/core';
import type { ImageView, PhotoView, PostView, ProfileView } from '../protocol.js';

export const POSTS = 'app.post';
export const SPACE_ABOUT = 'app.space';
export const PROFILES = 'std.profile';
/** The record id of the space's name in {@link SPACE_ABOUT}. */
export const ABOUT_ID = 'about';
const MAX_TEXT = 10_000;
const MAX_THUMBNAIL = 64 * 1024;

type Fields = { [key: string]: BodyValue };
const isFields = (value: unknown): value is Fields =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Uint8Array);

export function toImage(value: unknown): ImageView | undefined {
  if (!isFields(value)) return undefined;
  const { mime, width, height, thumbnail } = value;
  if (
    typeof mime !== 'string' ||
    !mime.startsWith('image/') ||
    !Number.isSafeInteger(width) ||
    !Number.isSafeInteger(height) ||
    !(thumbnail instanceof Uint8Array) ||
    thumbnail.length > MAX_THUMBNAIL
  )
    return undefined;
  return { mime, width: width as number, height: height as number, thumbnail };
}

/** The photo's file, as the body names it. */
export function photoFile(record: MincaRecord): FileRef | undefined {
  const photo = isFields(record.body) ? record.body.photo : undefined;
  const file = isFields(photo) ? photo.file : undefined;
  return isFileRef(file) ? file : undefined;
}

/** `whole`: ids of the files this device holds whole. */
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
    const image = toImage(body.photo);
    if (!image) return undefined;
    const photo: PhotoView = image;
    const file = photoFile(record);
    if (file) photo.file = { id: file.$file, size: file.size, whole: whole.has(file.$file) };
    post.photo = photo;
  }
  return post;
}

/** A profile counts only when its author is the person it describes. */
export function toProfile(record: MincaRecord): ProfileView | undefined {
  const body = record.body;
  if (!isFields(body) || typeof body.name !== 'string') return undefined;
  if (record.author.slice('did:key:'.length) !== record.id) return undefined;
  const profile: ProfileView = { did: record.author, name: body.name.slice(0, 80) };
  const avatar = toImage(body.avatar);
  if (avatar) profile.avatar = avatar;
  return profile;
}

export function imageBody(image: ImageView): Fields {
  return {
    mime: image.mime,
    width: image.width,
    height: image.height,
    thumbnail: image.thumbnail,
  };
}
