/**
 * `std.profile`: who someone is in a space, in their own words (spec 05 §17.2). One record per
 * person, its id their DID without `did:key:`; it counts only when they wrote it themselves.
 */
import type { BodyValue, MincaNode, MincaRecord } from '@minca/core';
import { isFields, isText } from './fields.js';
import { imageBody, readImage, type StdImage } from './image.js';
import { accountOf, writerAccounts } from './writers.js';

export const PROFILES = 'std.profile';
export const MAX_NAME = 80;
/** An avatar is resized to at most this, on its long side, before it is added. */
export const AVATAR_EDGE = 256;

/** What a profile says. */
export interface StdProfile {
  /** 1 to 80 characters, as the person typed it (trimmed). */
  name: string;
  /** A small picture, at most {@link AVATAR_EDGE} px on its long side. */
  avatar?: StdImage;
}

/** A profile as read, with whose it is. */
export interface Profile extends StdProfile {
  did: string;
}

const DID_PREFIX = 'did:key:';

/** The record id of `did`'s profile. */
export function profileId(did: string): string {
  if (!did.startsWith(DID_PREFIX)) throw new TypeError(`not a did:key: ${did.slice(0, 80)}`);
  return did.slice(DID_PREFIX.length);
}

/**
 * The profile a record holds, or `undefined` when it is not one that counts: its author does
 * not write for the person its id names, or its body is not a profile. `accounts` ties writer
 * keys to their accounts ({@link writerAccounts}); without it, an author is its own account.
 * An avatar that is not a `std.image` is left out, the name kept.
 */
export function readProfile(
  record: MincaRecord,
  accounts: ReadonlyMap<string, string> = new Map(),
): Profile | undefined {
  if (record.collection !== PROFILES) return undefined;
  const did = accountOf(accounts, record.author);
  if (!did.startsWith(DID_PREFIX) || profileId(did) !== record.id) return undefined;
  const body = record.body;
  if (!isFields(body) || !isText(body.name, MAX_NAME)) return undefined;
  const profile: Profile = { did, name: body.name.trim() };
  const avatar = readImage(body.avatar);
  if (avatar) profile.avatar = avatar;
  return profile;
}

/** `profile` as a body, checked as a reader would check it: a `TypeError` otherwise. */
export function profileBody(profile: StdProfile): { [key: string]: BodyValue } {
  const name = typeof profile.name === 'string' ? profile.name.trim() : '';
  if (!isText(name, MAX_NAME)) {
    throw new TypeError(`a profile's name is 1 to ${MAX_NAME} characters`);
  }
  return profile.avatar ? { name, avatar: imageBody(profile.avatar) } : { name };
}

type Records = Pick<MincaNode['records'], 'put' | 'list'>;

/** Writes this node's own profile in `space`. */
export async function putProfile(
  node: { did: string; records: Records },
  space: string,
  profile: StdProfile,
): Promise<Profile> {
  const record = await node.records.put(space, PROFILES, profileBody(profile), {
    id: profileId(node.did),
  });
  // This node's writer writes for its account, node.did.
  return readProfile(record, new Map([[record.author, node.did]]))!;
}

/** Every profile in `space` that counts, by account DID. */
export async function listProfiles(
  node: { records: Records },
  space: string,
): Promise<Map<string, Profile>> {
  const [records, accounts] = await Promise.all([
    node.records.list(space, PROFILES),
    writerAccounts(node, space),
  ]);
  const profiles = new Map<string, Profile>();
  for (const record of records) {
    const profile = readProfile(record, accounts);
    if (profile) profiles.set(profile.did, profile);
  }
  return profiles;
}
