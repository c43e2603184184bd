/**
 * The S3-compatible bucket a host or carrier mirrors to, when configured: endpoint and bucket
 * by flag, env or file; the keys by env or file only, never a flag (a flag shows in `ps`).
 */
import type { BlobStore } from '@minca/core';
import { createS3BlobStore } from '@minca/s3';
import { CliError, EXIT } from '../cli-error.js';
import type { Settings } from '../config.js';

export interface S3Flags {
  s3Endpoint?: string;
  s3Bucket?: string;
  s3Prefix?: string;
  s3Region?: string;
}

/** The bucket's blob store, or undefined when no bucket is configured. */
export function s3Mirror(settings: Settings, kind: string, flags: S3Flags): BlobStore | undefined {
  const at = (name: string) => `${kind}.s3.${name}`;
  const endpoint = settings.string({
    flag: flags.s3Endpoint,
    env: 'MINCA_S3_ENDPOINT',
    file: at('endpoint'),
  });
  const bucket = settings.string({
    flag: flags.s3Bucket,
    env: 'MINCA_S3_BUCKET',
    file: at('bucket'),
  });
  if (endpoint === undefined && bucket === undefined) return undefined;
  if (!endpoint || !bucket)
    throw new CliError(EXIT.usage, 'an S3 mirror needs both an endpoint and a bucket');
  const accessKeyId = settings.string({ env: 'MINCA_S3_ACCESS_KEY_ID', file: at('accessKeyId') });
  const secretAccessKey = settings.string({
    env: 'MINCA_S3_SECRET_ACCESS_KEY',
    file: at('secretAccessKey'),
  });
  if (!accessKeyId || !secretAccessKey) {
    throw new CliError(
      EXIT.usage,
      'an S3 mirror needs MINCA_S3_ACCESS_KEY_ID and MINCA_S3_SECRET_ACCESS_KEY (env or config file)',
    );
  }
  const prefix = settings.string({
    flag: flags.s3Prefix,
    env: 'MINCA_S3_PREFIX',
    file: at('prefix'),
  });
  const region = settings.string({
    flag: flags.s3Region,
    env: 'MINCA_S3_REGION',
    file: at('region'),
  });
  try {
    new URL(endpoint);
  } catch {
    throw new CliError(EXIT.usage, `the S3 endpoint ${endpoint} is not a URL`);
  }
  return createS3BlobStore({
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    ...(prefix ? { prefix } : {}),
    ...(region ? { region } : {}),
  });
}
