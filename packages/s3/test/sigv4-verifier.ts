// An independent SigV4 check (node:crypto, not aws4fetch), because s3rver does not verify V4
// signatures: the fault proxy runs it on every request it is given a secret for.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface SignedRequestSeen {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface SigV4Expectation {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  sessionToken?: string;
}

/** `undefined` when the request is correctly signed, else why not. */
export function sigV4Problem(
  request: SignedRequestSeen,
  expect: SigV4Expectation,
): string | undefined {
  const header = request.headers.authorization;
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      header ?? '',
    );
  if (!match) return 'no well-formed SigV4 Authorization header';
  const [, accessKeyId, date, region, service, signedHeaders, signature] =
    match as unknown as string[];
  if (accessKeyId !== expect.accessKeyId) return 'wrong access key id';
  if (region !== expect.region) return `region ${region} in the scope`;
  if (service !== 's3') return `service ${service} in the scope`;
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date!)) return 'x-amz-date is not the scope date';
  const signed = signedHeaders!.split(';');
  for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) {
    if (!signed.includes(required)) return `${required} is not signed`;
  }
  if (expect.sessionToken !== undefined) {
    if (request.headers['x-amz-security-token'] !== expect.sessionToken) return 'no session token';
    if (!signed.includes('x-amz-security-token')) return 'session token not signed';
  }

  const [path, query = ''] = splitOnce(request.url, '?');
  const canonicalUri = path
    .split('/')
    .map((segment) => strictEncode(decodeURIComponent(segment)))
    .join('/');
  const canonicalQuery = query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const [name, value = ''] = splitOnce(pair, '=');
      return [name, value].map((part) => strictEncode(decodeURIComponent(part)));
    })
    .sort(([k1, v1], [k2, v2]) => (k1! < k2! ? -1 : k1! > k2! ? 1 : v1! < v2! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = signed
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    String(request.headers['x-amz-content-sha256'] ?? ''),
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${expect.secretAccessKey}`, date!);
  for (const part of [region!, service!, 'aws4_request']) key = hmac(key, part);
  const expected = createHmac('sha256', key).update(stringToSign).digest();
  return timingSafeEqual(expected, Buffer.from(signature!, 'hex'))
    ? undefined
    : 'signature mismatch';
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at === -1 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

function strictEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
