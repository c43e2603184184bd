export {
  BASE_BACKOFF_MS,
  backoffMs,
  MAX_ATTEMPTS,
  MAX_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
} from './retry-policy.js';
export { createS3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';
export type { FetchFunction } from './signed-transport.js';
