import { MincaError } from '@minca/core';
import { child, parseXml } from './xml.js';

/** One page of a ListObjectsV2 answer. */
export interface ListObjectsPage {
  /** Full object names in the bucket, as listed (store prefix included). */
  keys: string[];
  /** The common prefixes a listing with a delimiter gives, in full; absent when none. */
  folders?: string[];
  /** The token for the next page, present exactly when the listing is truncated. */
  nextContinuationToken: string | undefined;
}

const malformed = (why: string) =>
  new MincaError('malformed', `not a ListObjectsV2 result: ${why}`);

/**
 * Reads a ListObjectsV2 (`list-type=2`) answer. Every key must start with `requestedPrefix`
 * (S3 never lists others), and a truncated page must carry a continuation token; otherwise
 * the answer is `MincaError('malformed')`.
 */
export function parseListObjectsPage(xml: string, requestedPrefix: string): ListObjectsPage {
  const root = parseXml(xml);
  if (root.name !== 'ListBucketResult') throw malformed(`root element is <${root.name}>`);
  // We never ask for encoding-type=url, but a server that applies it anyway says so.
  const urlEncoded = child(root, 'EncodingType')?.text.trim().toLowerCase() === 'url';

  const decode = (text: string) => {
    if (!urlEncoded) return text;
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      throw malformed('a url-encoded key does not decode');
    }
  };
  const keys: string[] = [];
  const folders: string[] = [];
  for (const entry of root.children) {
    if (entry.name !== 'Contents' && entry.name !== 'CommonPrefixes') continue;
    const field = entry.name === 'Contents' ? 'Key' : 'Prefix';
    const element = child(entry, field);
    if (!element) throw malformed(`an entry has no <${field}>`);
    const name = decode(element.text);
    if (!name.startsWith(requestedPrefix)) throw malformed('a key outside the requested prefix');
    (field === 'Key' ? keys : folders).push(name);
  }

  const truncated = child(root, 'IsTruncated')?.text.trim() ?? 'false';
  if (truncated !== 'true' && truncated !== 'false')
    throw malformed('<IsTruncated> is not a boolean');
  const token = child(root, 'NextContinuationToken')?.text;
  if (truncated === 'true' && !token) throw malformed('truncated without <NextContinuationToken>');
  return {
    keys,
    ...(folders.length > 0 ? { folders } : {}),
    nextContinuationToken: truncated === 'true' ? token : undefined,
  };
}
