/**
 * `@minca/s3/testing` (Node only): a real S3-compatible server (s3rver) on 127.0.0.1 to run the
 * S3 blob store against in tests and benchmarks. s3rver is an optional peer dependency.
 */
export {
  type RunningS3rver,
  S3RVER_ACCESS_KEY_ID,
  S3RVER_BUCKET,
  S3RVER_SECRET_ACCESS_KEY,
  type StartS3rverOptions,
  startS3rver,
} from './s3rver.js';
