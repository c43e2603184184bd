import { assertBlobKey } from '@minca/core';

/** Encodes each `/`-separated part of `path` with `encodeURIComponent`, keeping the slashes. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * Checks and normalises the `endpoint` option: an http(s) URL without credentials, query or
 * fragment. Returns it without a trailing slash, ready for `/<bucket>` to be appended.
 */
export function normaliseEndpoint(endpoint: unknown): string {
  if (typeof endpoint !== 'string') throw new TypeError('endpoint must be a URL string');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TypeError('endpoint must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('endpoint must be an http(s) URL');
  }
  // Credentials or a query in the endpoint would end up in every URL, and so in messages.
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError('endpoint must not hold credentials, a query or a fragment');
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * Checks the `prefix` option (blob-key grammar, a trailing `/` allowed) and returns it as the
 * string every object name in the bucket starts with: `''` or `'<prefix>/'`.
 */
export function normalisePrefix(prefix: unknown): string {
  if (prefix === undefined || prefix === '') return '';
  if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  assertBlobKey(trimmed);
  return trimmed + '/';
}
