// The tests' s3rver: the launcher in s3rver-process.mjs (shared with the benchmark), and the
// credentials and bucket the tests use.
import { startS3rverProcess } from './s3rver-process.mjs';

/** s3rver knows this one access key id; it checks the id, not the V4 signature. */
export const ACCESS_KEY_ID = 'S3RVER';
/** s3rver does not verify V4 signatures, so any secret passes; the tests use a telling one. */
export const SECRET_ACCESS_KEY = 'test-secret-k9Qz7Wv3Lm';
export const BUCKET = 'minca-test';

export interface RunningS3rver {
  endpoint: string;
  close(): Promise<void>;
}

/** A running s3rver with bucket {@link BUCKET}; `close` stops it and removes its directory. */
export function startS3rver(): Promise<RunningS3rver> {
  return startS3rverProcess(BUCKET);
}
