// The Must show of issue #8, as separate processes on 127.0.0.1: two homes (HOME=a, HOME=b) and
// one host. A creates a space, lets the host hold it and invites B; B joins; both write; a
// 10 MiB file added on A is read on B; the host restarts in the middle; everything converges
// and `minca status` shows both synced and level with the host.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homesForFile, minca, mincaJson, type Running, startMinca } from './minca.ts';

let host: Running | undefined;
const [a, b, h] = await homesForFile(['a', 'b', 'h'], () => host?.stop());

type Row = { id: string; body: { from: string } };
const bodies = (rows: Row[]) => rows.map((r) => r.body.from).sort();
type State = { space: string; synced: boolean; level: boolean };

let shared: { space: string; url: string } | undefined;
let fileRecord: { record: string; bytes: Buffer } | undefined;

async function addTenMiB(space: string) {
  const bytes = randomBytes(10 * 1024 * 1024);
  await writeFile(join(a, 'video.bin'), bytes);
  const added = await mincaJson<{ record: string }>(a, [
    'file',
    'add',
    space,
    join(a, 'video.bin'),
  ]);
  return { record: added.record, bytes };
}

/** Starts the host on `port` (0: any), its data in h/data. */
async function startHost(port: number) {
  host = await startMinca(h, ['host', '--port', String(port), '--data', join(h, 'data')]);
  return host.first as { url: string; did: string };
}

describe('two homes and a host', () => {
  it('converge through the host, across a host restart', async () => {
    const accountA = await mincaJson<{ did: string }>(a, ['init']);
    await mincaJson(b, ['init']);
    await mincaJson(h, [
      'host',
      'subscription',
      'add',
      accountA.did,
      '--spaces',
      '5',
      '--bytes',
      '100MiB',
      '--data',
      join(h, 'data'),
    ]);
    const first = await startHost(0);
    const url = first.url;
    const port = Number(new URL(url).port);
    expect(url).toBe(`ws://127.0.0.1:${port}`);

    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    const allowed = await mincaJson<{ holder: string }>(a, ['space', 'allow', space, url]);
    expect(allowed.holder).toBe(first.did);
    await mincaJson(a, ['put', space, 'app.post', '{"from":"a1"}']);
    const { code } = await mincaJson<{ code: string }>(a, ['space', 'invite', space]);
    expect(await mincaJson<State[]>(a, ['sync', url, '--timeout', '30'])).toEqual([
      expect.objectContaining({ space, level: true }),
    ]);

    await mincaJson(b, ['space', 'join', code]);
    await mincaJson(b, ['put', space, 'app.post', '{"from":"b1"}']);
    expect(await mincaJson<State[]>(b, ['sync', url, '--timeout', '30'])).toEqual([
      expect.objectContaining({ space, level: true }),
    ]);
    expect(bodies(await mincaJson<Row[]>(b, ['list', space, 'app.post']))).toEqual(['a1', 'b1']);

    // The host restarts in the middle, on the same port, over the same SQLite database.
    expect(await host!.stop()).toBe(0);
    await mincaJson(a, ['put', space, 'app.post', '{"from":"a2"}']);
    fileRecord = await addTenMiB(space);
    const down = await minca(a, ['sync', url, '--timeout', '2']);
    expect(down.code).toBe(5);
    const again = await startHost(port);
    expect(again).toEqual({ ...first, url, data: expect.any(String), kind: 'host', mirror: false });

    await mincaJson(a, ['sync', url, '--timeout', '60']);
    await mincaJson(b, ['put', space, 'app.post', '{"from":"b2"}']);
    await mincaJson(b, ['sync', url, '--timeout', '60']);
    await mincaJson(a, ['sync', url, '--timeout', '60']);

    const everything = ['a1', 'a2', 'b1', 'b2'];
    expect(bodies(await mincaJson<Row[]>(a, ['list', space, 'app.post']))).toEqual(everything);
    expect(bodies(await mincaJson<Row[]>(b, ['list', space, 'app.post']))).toEqual(everything);

    for (const home of [a, b]) {
      const status = await mincaJson<{
        spaces: Array<{
          id: string;
          fingerprint: string;
          peers: Array<{ did: string; url?: string; synced: boolean; level: boolean }>;
        }>;
      }>(home, ['status', '--peer', url, '--timeout', '60']);
      expect(status.spaces).toEqual([
        expect.objectContaining({
          id: space,
          peers: [{ did: first.did, url, synced: true, level: true }],
        }),
      ]);
    }
    const human = await minca(b, ['status', '--peer', url]);
    expect(human.stdout).toMatch(
      new RegExp(
        `${space}\\s+\\w+\\s+\\d+\\s+\\d+/\\d+\\s+\\S+\\s+${url.replace(/[/.]/g, '\\$&')}\\s+yes\\s+yes`,
      ),
    );
    shared = { space, url };
  }, 300_000);

  it('a 10 MiB file added on A is read on B through the host', async () => {
    const { space, url } = shared!;
    // A stays up (its daemon), so the host, which fetches every file, gets it from A.
    const daemon = await startMinca(a, ['daemon', '--peer', url]);
    await mincaJson(b, ['sync', url, '--timeout', '60']);
    const read = await mincaJson<{ size: number }>(
      b,
      [
        'file',
        'read',
        space,
        'app.file',
        fileRecord!.record,
        '--out',
        join(b, 'video.bin'),
        '--peer',
        url,
        '--timeout',
        '90',
      ],
      { timeoutMs: 120_000 },
    );
    expect(read.size).toBe(fileRecord!.bytes.length);
    expect(Buffer.compare(await readFile(join(b, 'video.bin')), fileRecord!.bytes)).toBe(0);
    expect(await daemon.stop()).toBe(0);
  }, 200_000);
});
