// Two Node processes sync one space over a real WebSocket on 127.0.0.1: they converge, and what
// crosses the wire is compressed.
import { afterEach, describe, expect, it } from 'vitest';
import { ChildNode, type ChildStatus, untilLevel } from './fixtures/child-node.mjs';

const children: ChildNode[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

/** Starts both, and has `client` join the space `server` owns, over its WebSocket. */
async function joined(server: ChildNode, client: ChildNode): Promise<{ serverDid: string }> {
  children.push(server, client);
  const { port, did: serverDid } = await server.ask<{ port: number; did: string }>({
    cmd: 'start',
  });
  const { did } = await client.ask<{ did: string }>({ cmd: 'start' });
  const { ticket } = await server.ask({ cmd: 'grant', did });
  await client.ask({ cmd: 'join', ticket, port });
  return { serverDid };
}

describe('two processes over a WebSocket', () => {
  it('converge both ways and report level with each other', async () => {
    const server = new ChildNode('serve', 300);
    const client = new ChildNode('join', 200);
    const { serverDid } = await joined(server, client);

    const [a, b] = await untilLevel(server, client, 30_000);
    // 300 + 200 records and the grant.
    expect(a!.versions).toBe(501);
    expect(b!.fingerprint).toBe(a!.fingerprint);
    expect(b!.peers).toEqual([{ did: serverDid, synced: true, level: true }]);
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
  });

  // Spec 05 §8: WebSockets compress minca's frames (permessage-deflate) where both ends offer it.
  it.each([
    ['signed each', {}],
    ['under batch signatures of 64', { MINCA_FIXTURE_PER_SIGNATURE: '64' }],
  ])('carry an initial sync of small records %s in at most 250 bytes a record', async (_, env) => {
    const records = 3_000;
    const server = new ChildNode('serve', records, { env });
    const client = new ChildNode('join', 0);
    await joined(server, client);
    const [a, b] = await untilLevel<Traffic>(server, client, 60_000);
    expect(b!.versions).toBe(records + 1);
    // What the TCP sockets carried, upgrade and framing included, against minca's own frames.
    const wire = a!.wireSent + b!.wireSent;
    const frames = a!.sent + b!.sent;
    expect(wire / records).toBeLessThanOrEqual(250);
    expect(wire).toBeLessThan(0.75 * frames);
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
  });
});

/** What the fixture counts of its traffic: frames, and the bytes its TCP sockets carried. */
interface Traffic extends ChildStatus {
  sent: number;
  wireSent: number;
}
