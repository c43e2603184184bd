// Files between two Node processes over a real WebSocket on 127.0.0.1: a small file comes
// ahead, a large one when read, each checked end to end.
import { afterEach, describe, expect, it } from 'vitest';
import { ChildNode } from './fixtures/child-node.mjs';

const children: ChildNode[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

interface Added {
  ref: { $file: string; key: string; size: number };
  sha: string;
}

describe('files over a WebSocket between processes', () => {
  it('fetches a small file ahead and a large one on reading, checking every chunk', async () => {
    const server = new ChildNode('serve', 0);
    const client = new ChildNode('join', 0);
    children.push(server, client);
    const { port } = await server.ask<{ port: number }>({ cmd: 'start' });
    const { did } = await client.ask<{ did: string }>({ cmd: 'start' });
    const { ticket } = await server.ask({ cmd: 'grant', did });
    const small = await server.ask<Added>({ cmd: 'addFile', size: 300 * 1024 });
    const large = await server.ask<Added>({ cmd: 'addFile', size: 12 * 1024 * 1024 + 5 });
    await client.ask({ cmd: 'join', ticket, port });
    let whole: string[] = [];
    for (let i = 0; i < 200 && !whole.includes(small.ref.$file); i++) {
      await new Promise((r) => setTimeout(r, 50));
      ({ whole } = await client.ask<{ whole: string[] }>({ cmd: 'files' }));
    }
    expect(whole).toContain(small.ref.$file);
    expect(whole).not.toContain(large.ref.$file); // over 5 MiB: not ahead
    const read = await client.ask<{ size: number; sha: string }>({
      cmd: 'readFile',
      ref: large.ref,
    });
    expect(read).toMatchObject({ size: large.ref.size, sha: large.sha });
    const again = await client.ask<{ sha: string }>({ cmd: 'readFile', ref: small.ref });
    expect(again.sha).toBe(small.sha);
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
  }, 60_000);
});
