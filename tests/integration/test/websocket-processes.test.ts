// Two Node processes sync one space over a real WebSocket on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { ChildNode } from './fixtures/child-node.mjs';

const children: ChildNode[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

interface Status {
  fingerprint: string;
  versions: number;
  peers: Array<{ did: string; synced: boolean; level: boolean }>;
}

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

    let a: Status | undefined;
    let b: Status | undefined;
    for (let i = 0; i < 300; i++) {
      a = await server.ask<Status>({ cmd: 'status' });
      b = await client.ask<Status>({ cmd: 'status' });
      if (a.fingerprint === b.fingerprint && b.peers[0]?.level) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    // 300 + 200 records and the grant.
    expect(a!.versions).toBe(501);
    expect(b!.fingerprint).toBe(a!.fingerprint);
    expect(b!.peers).toEqual([{ did: serverDid, synced: true, level: true }]);
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
  });
});
