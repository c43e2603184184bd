import {
  assertBlobFolder,
  assertBlobKey,
  assertBlobRange,
  type BlobStore,
  MincaError,
} from '@minca/core';
import { AwsClient } from 'aws4fetch';
import { type ListObjectsPage, parseListObjectsPage } from './list-objects-page.js';
import { encodePath, normaliseEndpoint, normalisePrefix } from './object-url.js';
import { rangeHeader, readRange } from './ranged-get.js';
import { contentLengthDiffers, discardBody, readBounded } from './response-body.js';
import { readS3ErrorCode, statusError } from './s3-error-answer.js';
import { type FetchFunction, SignedTransport, TransientError } from './signed-transport.js';

/** Options of {@link createS3BlobStore}. */
export interface S3BlobStoreOptions {
  /** The service's origin, e.g. `https://<account>.r2.cloudflarestorage.com`. */
  endpoint: string;
  /** The bucket, addressed path-style: `<endpoint>/<bucket>/…`. */
  bucket: string;
  /** Keeps every key under `<prefix>/` in the bucket; blob-key grammar, a trailing `/` allowed. */
  prefix?: string;
  /** The access key id; it appears in each request's signature scope, never in messages. */
  accessKeyId: string;
  /** The secret key: it signs requests and is never sent, logged or put in a message. */
  secretAccessKey: string;
  /** The SigV4 region; `auto` by default, as R2 wants. AWS needs the bucket's region. */
  region?: string;
  /** A temporary credential's session token (AWS STS). */
  sessionToken?: string;
  /** The `fetch` to send with; the global one by default. */
  fetch?: FetchFunction;
  /** Objects per ListObjectsV2 page, 1–1000; 1000 (the server's default) when unset. */
  maxKeys?: number;
  /** Each attempt is aborted (and counts as a failed attempt) after this many ms; 60,000. */
  timeoutMs?: number;
  /** The random source of backoff jitter, in [0, 1); `Math.random`. For tests. */
  random?: () => number;
  /** How to wait between attempts; a `setTimeout` promise. For tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** A listing page is at most 1000 keys of at most 1024 characters, escaped: far below this. */
const LIST_BODY_LIMIT = 32 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * A {@link BlobStore} in an S3-compatible bucket: Cloudflare R2, Backblaze B2, MinIO, Wasabi
 * or AWS S3. Requests are path-style and SigV4-signed (aws4fetch); 429, 5xx and broken
 * connections are retried, up to 5 attempts in all.
 *
 * @example
 * const store = createS3BlobStore({
 *   endpoint: 'https://<account>.r2.cloudflarestorage.com',
 *   bucket: 'minca',
 *   accessKeyId: process.env.R2_ACCESS_KEY_ID!,
 *   secretAccessKey: process.env.R2_SECRET_ACCESS_KEY!,
 * });
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createS3BlobStore needs an options object');
  }
  const endpoint = normaliseEndpoint(options.endpoint);
  const { bucket, accessKeyId, secretAccessKey, sessionToken, region = 'auto' } = options;
  if (typeof bucket !== 'string' || bucket === '' || bucket.includes('/')) {
    throw new TypeError('bucket must be a non-empty name without "/"');
  }
  // Never echo a credential, even a malformed one.
  for (const [name, value] of [
    ['accessKeyId', accessKeyId],
    ['secretAccessKey', secretAccessKey],
    ['region', region],
  ] as const) {
    if (typeof value !== 'string' || value === '') {
      throw new TypeError(`${name} must be a non-empty string`);
    }
  }
  if (sessionToken !== undefined && typeof sessionToken !== 'string') {
    throw new TypeError('sessionToken must be a string');
  }
  const maxKeys = options.maxKeys;
  if (maxKeys !== undefined && !(Number.isInteger(maxKeys) && maxKeys >= 1 && maxKeys <= 1000)) {
    throw new RangeError('maxKeys must be an integer from 1 to 1000');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new RangeError('timeoutMs must be a positive number');
  }
  const fetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  if (typeof fetch !== 'function') throw new TypeError('fetch must be a function');

  const storePrefix = normalisePrefix(options.prefix);
  const bucketUrl = `${endpoint}/${encodeURIComponent(bucket)}`;
  const objectUrl = (key: string) => `${bucketUrl}/${encodePath(storePrefix + key)}`;
  const transport = new SignedTransport({
    client: new AwsClient({ accessKeyId, secretAccessKey, sessionToken, region, service: 's3' }),
    fetch,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    timeoutMs,
  });

  /** A 404 means "no such key", unless the bucket itself is missing: that must not pass. */
  const throwIfNoBucket = async (what: string, response: Response): Promise<void> => {
    const code = await readS3ErrorCode(response);
    if (code === 'NoSuchBucket') throw statusError(what, response.status, code);
  };

  return {
    async get(key) {
      assertBlobKey(key);
      const what = `get of ${JSON.stringify(key)}`;
      return transport.send(what, { method: 'GET', url: objectUrl(key) }, async (response) => {
        if (response.status === 404) {
          await throwIfNoBucket(what, response);
          return null;
        }
        if (response.status !== 200) {
          throw statusError(what, response.status, await readS3ErrorCode(response));
        }
        const bytes = new Uint8Array(await response.arrayBuffer());
        if (contentLengthDiffers(response, bytes.length)) {
          throw new TransientError(`body of ${bytes.length} bytes is not its Content-Length`);
        }
        return bytes;
      });
    },

    async getRange(key, offset, length) {
      assertBlobKey(key);
      assertBlobRange(offset, length);
      const what = `ranged get of ${JSON.stringify(key)}`;
      const request = {
        method: 'GET',
        url: objectUrl(key),
        headers: { range: rangeHeader(offset, length) },
      } as const;
      return transport.send(what, request, async (response) => {
        if (response.status === 404) {
          await throwIfNoBucket(what, response);
          return null;
        }
        const bytes = await readRange(what, response, offset, length);
        if (bytes) return bytes;
        throw statusError(what, response.status, await readS3ErrorCode(response));
      });
    },

    async put(key, bytes) {
      assertBlobKey(key);
      if (!(bytes instanceof Uint8Array)) throw new TypeError('bytes must be a Uint8Array');
      const what = `put of ${JSON.stringify(key)}`;
      const request = {
        method: 'PUT',
        url: objectUrl(key),
        headers: { 'content-type': 'application/octet-stream' },
        // fetch takes views of an ArrayBuffer only, not of a SharedArrayBuffer.
        body:
          bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice(),
      } as const;
      await transport.send(what, request, async (response) => {
        if (response.status < 200 || response.status > 299) {
          throw statusError(what, response.status, await readS3ErrorCode(response));
        }
        await discardBody(response);
      });
    },

    async delete(key) {
      assertBlobKey(key);
      const what = `delete of ${JSON.stringify(key)}`;
      await transport.send(what, { method: 'DELETE', url: objectUrl(key) }, async (response) => {
        if (response.status === 404) return throwIfNoBucket(what, response);
        if (response.status < 200 || response.status > 299) {
          throw statusError(what, response.status, await readS3ErrorCode(response));
        }
        await discardBody(response);
      });
    },

    async list(prefix) {
      if (typeof prefix !== 'string') throw new TypeError('prefix must be a string');
      const found = new Set<string>();
      for (const page of await listPages(`list of prefix ${JSON.stringify(prefix)}`, prefix)) {
        for (const name of page.keys) {
          const key = name.slice(storePrefix.length);
          // Objects this store could not have written (foreign names) are not its keys.
          if (isBlobKey(key)) found.add(key);
        }
      }
      return [...found].sort();
    },

    async listFolders(prefix) {
      assertBlobFolder(prefix);
      const what = `list of folders under ${JSON.stringify(prefix)}`;
      const found = new Set<string>();
      for (const page of await listPages(what, prefix, '/')) {
        for (const name of page.folders ?? []) {
          const part = name.slice(storePrefix.length + prefix.length, -1);
          if (name.endsWith('/') && !part.includes('/') && isBlobKey(part)) found.add(part);
        }
      }
      return [...found].sort();
    },
  };

  /** Every page of a ListObjectsV2 listing of `prefix`, following continuation tokens. */
  async function listPages(
    what: string,
    prefix: string,
    delimiter?: string,
  ): Promise<ListObjectsPage[]> {
    const requested = storePrefix + prefix;
    const pages: ListObjectsPage[] = [];
    const seenTokens = new Set<string>();
    let token: string | undefined;
    do {
      let query = `list-type=2&prefix=${encodeURIComponent(requested)}`;
      if (delimiter !== undefined) query += `&delimiter=${encodeURIComponent(delimiter)}`;
      if (maxKeys !== undefined) query += `&max-keys=${maxKeys}`;
      if (token !== undefined) query += `&continuation-token=${encodeURIComponent(token)}`;
      const request = { method: 'GET', url: `${bucketUrl}?${query}` } as const;
      const page = await transport.send(what, request, async (response) => {
        if (response.status !== 200) {
          throw statusError(what, response.status, await readS3ErrorCode(response));
        }
        const body = await readBounded(response, LIST_BODY_LIMIT);
        if (!body) throw malformedAnswer(what, 'a page over 32 MiB');
        let xml: string;
        try {
          xml = new TextDecoder('utf-8', { fatal: true }).decode(body);
        } catch {
          throw malformedAnswer(what, 'a page that is not UTF-8');
        }
        try {
          return parseListObjectsPage(xml, requested);
        } catch (error) {
          throw malformedAnswer(what, (error as Error).message);
        }
      });
      pages.push(page);
      token = page.nextContinuationToken;
      if (token !== undefined) {
        if (seenTokens.has(token)) {
          throw malformedAnswer(what, 'a continuation token came back twice');
        }
        seenTokens.add(token);
      }
    } while (token !== undefined);
    return pages;
  }
}

function malformedAnswer(what: string, why: string): MincaError {
  return new MincaError('malformed', `S3 ${what} got a malformed answer: ${why}`);
}

function isBlobKey(key: string): boolean {
  try {
    assertBlobKey(key);
    return true;
  } catch {
    return false;
  }
}
