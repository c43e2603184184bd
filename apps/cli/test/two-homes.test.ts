// Two people, two homes (HOME=a, HOME=b), separate `minca` processes on 127.0.0.1: A's daemon
// serves its account; B joins with A's invite and syncs with it; the daemon reloads what A's
// commands write while it runs.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homesForFile, minca, mincaJson, type Running, startMinca } from './minca.ts';

let daemon: Running | undefined;
const [a, b] = await homesForFile(['a', 'b'], () => daemon?.stop());

type Row = { id: string; body: { from: string } };
const bodies = (rows: Row[]) => rows.map((r) => r.body.from).sort();

describe('two homes', () => {
  it('invite, join, write on both, sync through A’s daemon, which reloads A’s writes', async () => {
    await mincaJson(a, ['init']);
    await mincaJson(b, ['init']);
    const space = (await mincaJson<{ id: string }>(a, ['space', 'create'])).id;
    await mincaJson(a, ['put', space, 'app.post', '{"from":"a1"}']);
    const { code } = await mincaJson<{ code: string }>(a, ['space', 'invite', space]);
    expect(code).toMatch(/^minca-invite:/);
    await mincaJson(b, ['space', 'join', code]);
    await mincaJson(b, ['put', space, 'app.post', '{"from":"b1"}']);

    daemon = await startMinca(a, ['daemon', '--listen', '0']);
    const url = daemon.first.url as string;
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);

    const synced = await mincaJson<Array<{ space: string; level: boolean }>>(b, [
      'sync',
      url,
      '--timeout',
      '30',
    ]);
    expect(synced).toEqual([expect.objectContaining({ space, level: true })]);
    expect(bodies(await mincaJson<Row[]>(b, ['list', space, 'app.post']))).toEqual(['a1', 'b1']);

    // A writes beside the running daemon; the daemon reloads and B gets it.
    await mincaJson(a, ['put', space, 'app.post', '{"from":"a2"}']);
    let got: string[] = [];
    for (let i = 0; i < 20 && got.length < 3; i++) {
      await mincaJson(b, ['sync', url, '--timeout', '30']);
      got = bodies(await mincaJson<Row[]>(b, ['list', space, 'app.post']));
    }
    expect(got).toEqual(['a1', 'a2', 'b1']);
    expect(bodies(await mincaJson<Row[]>(a, ['list', space, 'app.post']))).toEqual([
      'a1',
      'a2',
      'b1',
    ]);

    // A file added beside the daemon is read on B, fetched from A through the daemon.
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    await writeFile(join(a, 'photo.bin'), bytes);
    const added = await mincaJson<{ record: string; file: string }>(a, [
      'file',
      'add',
      space,
      join(a, 'photo.bin'),
    ]);
    let read: { size: number } | undefined;
    for (let i = 0; i < 20 && !read; i++) {
      await mincaJson(b, ['sync', url, '--timeout', '30']);
      const got = await minca(b, [
        '--json',
        'file',
        'read',
        space,
        'app.file',
        added.record,
        '--out',
        join(b, 'photo.bin'),
        '--peer',
        url,
        '--timeout',
        '20',
      ]);
      if (got.code === 0) read = JSON.parse(got.stdout);
      else expect(got.code).toBe(4); // the record has not arrived yet
    }
    expect(read?.size).toBe(bytes.length);
    expect(Buffer.compare(await readFile(join(b, 'photo.bin')), bytes)).toBe(0);
    // The record shows the file, never its key.
    const shown = await minca(b, ['get', space, 'app.file', added.record]);
    expect(JSON.parse(shown.stdout).file).toEqual(expect.objectContaining({ $file: added.file }));
    expect(JSON.parse(shown.stdout).file.key).toBeUndefined();

    // A's status, from the daemon, shows DIDs and never the key.
    const status = await minca(a, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/daemon \(pid \d+\)/);

    // A second daemon for the same account is refused.
    const second = await minca(a, ['daemon'], { timeoutMs: 20_000 });
    expect(second.code).toBe(6);
    expect(second.stderr).toMatch(/already runs/);
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;
  });

  it('sync to nobody fails with exit 5 and says what to check', async () => {
    const ran = await minca(b, ['sync', 'ws://127.0.0.1:1', '--timeout', '2']);
    expect(ran.code).toBe(5);
    expect(ran.stderr).toMatch(/could not reach ws:\/\/127\.0\.0\.1:1/);
    const bad = await minca(b, ['sync', 'http://x']);
    expect(bad.code).toBe(2);
  });
});
