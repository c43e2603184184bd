// Two Node processes sync one space over a real WebSocket on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { ChildNode, untilLevel } from './fixtures/child-node.mjs';

const children: ChildNode[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

describe('two processes over a WebSocket', () => {
  it('converge both ways and report level with each other', async () => {
    const server = new ChildNode('serve', 300);
    const client = new ChildNode('join', 200);
    children.push(server, client);
    const { port, did: serverDid } = await server.ask<{ port: number; did: string }>({
      cmd: 'start',
    });
    const { did } = await client.ask<{ did: string }>({ cmd: 'start' });
    const { ticket } = await server.ask({ cmd: 'grant', did });
    await client.ask({ cmd: 'join', ticket, port });

    const [a, b] = await untilLevel(server, client, 30_000);
    // 300 + 200 records and the grant.
    expect(a!.versions).toBe(501);
    expect(b!.fingerprint).toBe(a!.fingerprint);
    expect(b!.peers).toEqual([{ did: serverDid, synced: true, level: true }]);
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
  });
});
