// `minca host` with an S3 bucket configured mirrors the spaces it holds without their key: a
// real `minca` host process and a real S3-compatible server (s3rver), both on 127.0.0.1.
import { join } from 'node:path';
import {
  type RunningS3rver,
  S3RVER_ACCESS_KEY_ID,
  S3RVER_SECRET_ACCESS_KEY,
  startS3rver,
} from '@minca/s3/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { homesForFile, mincaJson, type Running, startMinca } from './minca.ts';

const BUCKET = 'minca-host';
let host: Running | undefined;
let s3: RunningS3rver | undefined;
const [a, h] = await homesForFile(['a', 'h'], async () => {
  await host?.stop();
  await s3?.close();
});
beforeAll(async () => {
  s3 = await startS3rver({ bucket: BUCKET });
});

describe('a host with an S3 mirror', () => {
  it('pushes the segments of a space it holds to the bucket', async () => {
    const data = join(h, 'data');
    const { did } = await mincaJson<{ did: string }>(a, ['init']);
    await mincaJson(h, [
      'host',
      'subscription',
      'add',
      did,
      '--spaces',
      '1',
      '--bytes',
      '10MiB',
      '--data',
      data,
    ]);
    host = await startMinca(h, ['host', '--port', '0', '--data', data], {
      env: {
        MINCA_S3_ENDPOINT: s3!.endpoint,
        MINCA_S3_BUCKET: BUCKET,
        MINCA_S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
        MINCA_S3_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY,
      },
    });
    expect(host.first.mirror).toBe(true);
    const url = host.first.url as string;
    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    await mincaJson(a, ['space', 'allow', space, url]);
    for (let i = 0; i < 3; i++) await mincaJson(a, ['put', space, 'app.post', `{"i":${i}}`]);
    await mincaJson(a, ['sync', url, '--timeout', '30']);

    // Stopping pushes what is left: the segments are in the bucket under the host's writer.
    expect(await host.stop()).toBe(0);
    host = undefined;
    const bucket = s3!.store();
    const keys = await bucket.list(`${space}/`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys)
      expect(key).toMatch(/^[a-z2-7]{26}\/[a-z2-7]{26}\/\d{10}-[0-9a-f]{16}$/);
  });
});
