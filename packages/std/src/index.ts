/**
 * minca's standard records: what apps agree on so that one app's people and pictures show in
 * another (spec 05 §17). Reading checks everything, since a body comes from anyone in the
 * space. Making pictures in a browser (resizing, the placeholder) is `@minca/std/browser`.
 */
export { addImage, type PreparedImage } from './add-image.js';
export { type Fields, isFields } from './fields.js';
export {
  imageBody,
  MAX_ALT,
  MAX_IMAGE_EDGE,
  MAX_PLACEHOLDER_BYTES,
  placeholderUrl,
  readImage,
  type StdImage,
  THUMBNAIL_EDGE,
} from './image.js';
export {
  AVATAR_EDGE,
  listProfiles,
  MAX_NAME,
  PROFILES,
  type Profile,
  profileBody,
  profileId,
  putProfile,
  readProfile,
  type StdProfile,
} from './profile.js';
export { accountOf, writerAccounts } from './writers.js';
