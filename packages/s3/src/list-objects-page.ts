import { MincaError } from '@minca/core';
import { child, parseXml } from './xml.js';

/** One page of a ListObjectsV2 answer. */
export interface ListObjectsPage {
  /** Full object names in the bucket, as listed (store prefix included). */
  keys: string[];
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

  const keys: string[] = [];
  for (const contents of root.children) {
    if (contents.name !== 'Contents') continue;
    const keyElement = child(contents, 'Key');
    if (!keyElement) throw malformed('an entry has no <Key>');
    let key = keyElement.text;
    if (urlEncoded) {
      try {
        key = decodeURIComponent(key.replace(/\+/g, ' '));
      } catch {
        throw malformed('a url-encoded key does not decode');
      }
    }
    if (!key.startsWith(requestedPrefix)) throw malformed('a key outside the requested prefix');
    keys.push(key);
  }

  const truncated = child(root, 'IsTruncated')?.text.trim() ?? 'false';
  if (truncated !== 'true' && truncated !== 'false')
    throw malformed('<IsTruncated> is not a boolean');
  const token = child(root, 'NextContinuationToken')?.text;
  if (truncated === 'true' && !token) throw malformed('truncated without <NextContinuationToken>');
  return { keys, nextContinuationToken: truncated === 'true' ? token : undefined };
}
