// The tests' s3rver (`@minca/s3/testing`), one per test file, and a fault proxy in front of it.
import { startS3rver } from '../src/testing/index.ts';
import { type FaultProxyOptions, startFaultProxy } from './fault-proxy.ts';
import { perFile } from './helpers.ts';

export {
  S3RVER_ACCESS_KEY_ID as ACCESS_KEY_ID,
  S3RVER_BUCKET as BUCKET,
  S3RVER_SECRET_ACCESS_KEY as SECRET_ACCESS_KEY,
} from '../src/testing/index.ts';

/** This file's s3rver (or this describe block's): started before its tests, stopped after. */
export const s3rverForFile = () => perFile(startS3rver, (s3) => s3.close());

/** A fault proxy in front of `s3` for the same tests, stopped before it. */
export const proxyForFile = (
  s3: { endpoint: string },
  options: Omit<FaultProxyOptions, 'upstream'> = {},
) =>
  perFile(
    () => startFaultProxy({ ...options, upstream: s3.endpoint }),
    (proxy) => proxy.close(),
  );
