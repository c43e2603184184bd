/** Reads at most `limit` bytes of a body; `undefined` when it is longer (the rest is dropped). */
export async function readBounded(
  response: Response,
  limit: number,
): Promise<Uint8Array | undefined> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Drops a body we do not need, so the connection can be reused; a failure here is moot. */
export async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

/**
 * True when a `Content-Length` was given for the bytes as received (no content coding) and
 * does not match `length`.
 */
export function contentLengthDiffers(response: Response, length: number): boolean {
  const declared = response.headers.get('content-length')?.trim();
  const coding = response.headers.get('content-encoding')?.trim().toLowerCase() ?? 'identity';
  if (declared === undefined || coding !== 'identity' || !/^\d+$/.test(declared)) return false;
  return Number(declared) !== length;
}

/**
 * Reads the first `limit` bytes of a body and drops the rest: `more` tells whether there was
 * any. A body is never read far past `limit`, so a server sending too much costs one buffer.
 */
export async function readPrefix(
  response: Response,
  limit: number,
): Promise<{ bytes: Uint8Array; more: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(0), more: false };
  const bytes = new Uint8Array(limit);
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: length === limit ? bytes : bytes.slice(0, length), more: false };
    const take = Math.min(value.byteLength, limit - length);
    bytes.set(value.subarray(0, take), length);
    length += take;
    if (take < value.byteLength) {
      await reader.cancel().catch(() => {});
      return { bytes: length === limit ? bytes : bytes.slice(0, length), more: true };
    }
  }
}
