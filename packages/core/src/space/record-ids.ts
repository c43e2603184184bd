/** Record ids of a space's own records (spec 05 §7) that are made from DIDs. */
import { base64urlnopad } from '@scure/base';
import { utf8 } from '../bytes.js';
import { hashId } from '../ids.js';

const DID_PREFIX = 'did:key:';

/** A DID as a record id: without its `did:key:` prefix. */
export const didRecordId = (did: string) => did.slice(DID_PREFIX.length);

/** The DID a record id made by {@link didRecordId} stands for. */
export const recordDid = (id: string) => DID_PREFIX + id;

/**
 * The record of account `did`'s acceptance of invite `invite`: one per invite and account, so
 * two people with one invite never write the same record. 43 characters of base64url.
 */
export function acceptRecordId(invite: string, did: string): string {
  return base64urlnopad.encode(hashId(utf8(`minca/accept/${invite}/${did}`)));
}
