// A fleet of hosts over one bucket (issue 17), as separate processes on 127.0.0.1 with a real
// S3-compatible server (s3rver): the subscriptions live in the bucket, any host serves any
// space, and a brand-new host, with no other host alive, restores a space from the bucket
// alone: a member who never synced before gets the same fingerprint, and its file.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type RunningS3rver,
  S3RVER_ACCESS_KEY_ID,
  S3RVER_SECRET_ACCESS_KEY,
  startS3rver,
} from '@minca/s3/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { homesForFile, minca, mincaJson, type Running, startMinca } from './minca.ts';

const BUCKET = 'minca-fleet';
const running: Running[] = [];
let s3: RunningS3rver | undefined;
const [a, b, c, h] = await homesForFile(['a', 'b', 'c', 'h'], async () => {
  for (const r of running.splice(0)) await r.stop();
  await s3?.close();
});
let bucketEnv: Record<string, string> = {};
beforeAll(async () => {
  s3 = await startS3rver({ bucket: BUCKET });
  bucketEnv = {
    MINCA_S3_ENDPOINT: s3.endpoint,
    MINCA_S3_BUCKET: BUCKET,
    MINCA_S3_ACCESS_KEY_ID: S3RVER_ACCESS_KEY_ID,
    MINCA_S3_SECRET_ACCESS_KEY: S3RVER_SECRET_ACCESS_KEY,
  };
});

type First = { url: string; did: string; fleet: string; host: string };
type Space = { id: string; fingerprint: string; versions: number };

async function startHost(name: string): Promise<Running & { info: First }> {
  const host = await startMinca(h, ['host', '--port', '0', '--data', join(h, name)], {
    env: bucketEnv,
  });
  running.push(host);
  return Object.assign(host, { info: host.first as unknown as First });
}

async function stopHost(host: Running): Promise<void> {
  expect(await host.stop()).toBe(0);
  running.splice(running.indexOf(host), 1);
}

type Held = { id: string; account: string; files: number; fingerprint: string };
const hostStatus = (name: string) =>
  mincaJson<Held[]>(h, ['host', 'status', '--data', join(h, name)]);

const fingerprintOf = async (home: string, space: string) =>
  (await mincaJson<Space[]>(home, ['space', 'list'])).find((s) => s.id === space)?.fingerprint;

describe('a fleet of hosts over one bucket', () => {
  it('shares subscriptions, serves a space from any host, and restores it from the bucket alone', async () => {
    const key = join(h, 'fleet.key');
    const made = await mincaJson<{ fleet: string }>(h, ['host', 'fleet', 'new', key]);
    for (const name of ['h1', 'h2', 'h3'])
      expect(
        await mincaJson<{ fleet: string }>(h, [
          'host',
          'fleet',
          'join',
          key,
          '--data',
          join(h, name),
        ]),
      ).toMatchObject({ fleet: made.fleet });
    // A fleet key is never overwritten.
    expect((await minca(h, ['host', 'fleet', 'new', key])).code).not.toBe(0);

    const accountA = await mincaJson<{ did: string }>(a, ['init']);
    await mincaJson(b, ['init']);
    await mincaJson(c, ['init']);
    // Added through one host's folder, the subscription is in the bucket: every host reads it.
    const sub = await mincaJson<{ id: string }>(
      h,
      [
        'host',
        'subscription',
        'add',
        accountA.did,
        '--spaces',
        '2',
        '--bytes',
        '10MiB',
        '--data',
        join(h, 'h1'),
      ],
      { env: bucketEnv },
    );
    const listed = await mincaJson<Array<{ id: string; account: string }>>(
      h,
      ['host', 'subscription', 'list', '--data', join(h, 'h2')],
      { env: bucketEnv },
    );
    expect(listed).toEqual([expect.objectContaining({ id: sub.id, account: accountA.did })]);

    const [h1, h2] = [await startHost('h1'), await startHost('h2')];
    // Every host of the fleet proves the fleet's DID; each has a key of its own.
    expect(h1.info.did).toBe(made.fleet);
    expect(h2.info.did).toBe(made.fleet);
    expect(h1.info.host).not.toBe(h2.info.host);
    const fleet = `${h1.info.url}|${h2.info.url}`;

    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    const allowed = await mincaJson<{ holder: string }>(a, ['space', 'allow', space, fleet]);
    expect(allowed.holder).toBe(made.fleet);
    await mincaJson(a, ['put', space, 'app.post', '{"from":"a1"}']);
    const bytes = randomBytes(700_000);
    await writeFile(join(a, 'photo.bin'), bytes);
    const file = await mincaJson<{ record: string }>(a, [
      'file',
      'add',
      space,
      join(a, 'photo.bin'),
    ]);
    const forB = (await mincaJson<{ code: string }>(a, ['space', 'invite', space])).code;
    const forC = (await mincaJson<{ code: string }>(a, ['space', 'invite', space])).code;
    // A stays connected to h1 (its daemon) so the host fetches the file from it.
    const daemon = await startMinca(a, ['daemon', '--peer', h1.info.url]);
    running.push(daemon);
    const bucket = s3!.store();
    const deadline = Date.now() + 60_000;
    while (!(await bucket.list(`files/${space}/`)).some((k) => k.endsWith('/list'))) {
      if (Date.now() > deadline) throw new Error('the file never reached the bucket');
      await new Promise((r) => setTimeout(r, 250));
    }
    await stopHost(daemon);

    // B meets only h2, which never met A: it holds the space under the fleet's record.
    await mincaJson(b, ['space', 'join', forB]);
    await mincaJson(b, ['put', space, 'app.post', '{"from":"b1"}']);
    await mincaJson(b, ['sync', h2.info.url, '--timeout', '60']);
    await mincaJson(a, ['sync', h1.info.url, '--timeout', '60']);
    await mincaJson(b, ['sync', h2.info.url, '--timeout', '60']);
    type Row = { body: { from?: string } };
    const froms = async (home: string) =>
      (await mincaJson<Row[]>(home, ['list', space, 'app.post'])).map((r) => r.body.from).sort();
    expect(await froms(a)).toEqual(['a1', 'b1']);
    expect(await froms(b)).toEqual(['a1', 'b1']);
    const before = await fingerprintOf(a, space);
    expect(await fingerprintOf(b, space)).toBe(before);

    // Every host stops (pushing what it has); a brand-new one, never connected, comes up alone.
    await stopHost(h1);
    await stopHost(h2);
    for (const name of ['h1', 'h2'])
      expect(await hostStatus(name)).toEqual([expect.objectContaining({ fingerprint: before })]);
    const h3 = await startHost('h3');
    expect(h3.info.did).toBe(made.fleet);
    await mincaJson(c, ['space', 'join', forC]);
    await mincaJson(c, ['sync', h3.info.url, '--timeout', '60']);
    expect(await froms(c)).toEqual(['a1', 'b1']);
    // C's own acceptance is the one version h3 got from it: once A has that too, A and C are
    // the same set, so h3 gave C everything the space had, from the bucket alone.
    await mincaJson(a, ['sync', h3.info.url, '--timeout', '60']);
    expect(await fingerprintOf(c, space)).toBe(await fingerprintOf(a, space));
    expect(await fingerprintOf(a, space)).not.toBe(before);
    const status = await mincaJson<{
      spaces: Array<{ id: string; peers: Array<{ level: boolean }> }>;
    }>(c, ['status', '--peer', h3.info.url, '--timeout', '60']);
    expect(status.spaces.find((s) => s.id === space)?.peers).toEqual([
      expect.objectContaining({ level: true }),
    ]);
    // The file comes from the bucket through h3, checked chunk by chunk.
    const read = await mincaJson<{ size: number }>(
      c,
      [
        'file',
        'read',
        space,
        'app.file',
        file.record,
        '--out',
        join(c, 'photo.bin'),
        '--peer',
        h3.info.url,
        '--timeout',
        '90',
      ],
      { timeoutMs: 120_000 },
    );
    expect(read.size).toBe(bytes.length);
    expect(Buffer.compare(await readFile(join(c, 'photo.bin')), bytes)).toBe(0);
    // h3 holds it under the account that first brought it (A's), from the fleet's record, though
    // C brought it there; with the file, and its members' fingerprint.
    await stopHost(h3);
    expect(await hostStatus('h3')).toEqual([
      expect.objectContaining({
        id: space,
        account: accountA.did,
        files: 700_000 + 3 * 40,
        fingerprint: await fingerprintOf(c, space),
      }),
    ]);
  }, 400_000);
});
