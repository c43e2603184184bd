/** A running s3rver holding `bucket`; `close` stops it and removes its directory. */
export function startS3rverProcess(
  bucket: string,
): Promise<{ endpoint: string; close(): Promise<void> }>;
