// The gate every served connection waits at until its handshake: a deadline, caps overall and
// per address, the oldest silent shed first. Real TCP sockets on 127.0.0.1; the host's
// numbers (5 s, caps from the file limit) are in spec 06 §5, made small here to run quickly.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGate } from '../src/host/connection-gate.ts';
import { connectionLimits, lowFileLimitNote } from '../src/host/file-limit.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: Server | undefined;
let gate: ConnectionGate | undefined;
const clients: Socket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  gate?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A TCP server whose every socket goes through `gate`; `accepted` in arrival order. */
async function gated(limits: ConstructorParameters<typeof ConnectionGate>[0]) {
  gate = new ConnectionGate(limits);
  const accepted: Socket[] = [];
  server = createServer((socket) => {
    accepted.push(socket);
    gate!.admit(socket);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  /** Opens a client; resolves once the server has it. */
  const open = async () => {
    const n = accepted.length;
    const client = connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    clients.push(client);
    const end = Date.now() + 5_000;
    while (accepted.length === n && Date.now() < end) await sleep(2);
    return { client, server: accepted[accepted.length - 1]! };
  };
  return { gate, open, accepted };
}

describe('the connection gate', () => {
  it('closes a connection not through its handshake in time, and keeps one that is', async () => {
    const { gate, open } = await gated({
      handshakeMs: 300,
      maxPending: 100,
      maxPendingPerAddress: 100,
    });
    const silent = await open();
    const proven = await open();
    let authenticated = false;
    gate.upgraded(proven.server, () => authenticated);
    await sleep(100);
    authenticated = true;
    await sleep(600);
    expect(silent.server.destroyed).toBe(true);
    expect(proven.server.destroyed).toBe(false);
    expect(gate.stats()).toEqual(expect.objectContaining({ pending: 0, timedOut: 1, shed: 0 }));
  });

  it('past the cap, sheds the oldest silent connection first, then the oldest', async () => {
    const { gate, open } = await gated({
      handshakeMs: 60_000,
      maxPending: 4,
      maxPendingPerAddress: 100,
    });
    const talker = await open();
    gate.spoke(talker.server);
    const silent = [await open(), await open(), await open()];
    // A fifth arrival: the oldest silent one goes, not the older one that spoke.
    const fifth = await open();
    expect(silent[0]!.server.destroyed).toBe(true);
    expect(talker.server.destroyed).toBe(false);
    expect(fifth.server.destroyed).toBe(false);
    // The newest is always served: arrivals shed the oldest silent, one each.
    for (let i = 0; i < 10; i++) await open();
    expect(talker.server.destroyed).toBe(false);
    expect(gate.stats().pending).toBe(4);
    expect(gate.stats().shed).toBe(11);
    // Once only speakers wait, the oldest of them goes.
    const others = [await open(), await open(), await open()];
    for (const o of others) gate.spoke(o.server);
    const last = await open();
    gate.spoke(last.server);
    expect(talker.server.destroyed).toBe(true);
  });

  it('an authenticated connection leaves the count, so it is never shed', async () => {
    const { gate, open } = await gated({
      handshakeMs: 60_000,
      maxPending: 2,
      maxPendingPerAddress: 2,
    });
    const proven = await open();
    gate.upgraded(proven.server, () => true);
    for (let i = 0; i < 5; i++) await open();
    expect(proven.server.destroyed).toBe(false);
    expect(gate.stats().pending).toBe(2);
  });

  it('holds one address to its own cap', async () => {
    const { gate, open } = await gated({
      handshakeMs: 60_000,
      maxPending: 100,
      maxPendingPerAddress: 3,
    });
    const first = await open();
    for (let i = 0; i < 3; i++) await open();
    expect(first.server.destroyed).toBe(true);
    expect(gate.stats().pending).toBe(3);
  });
});

describe('caps from the file limit', () => {
  it('leaves the host files of its own, and says so when the limit is low', () => {
    const low = connectionLimits(1024);
    expect(low.maxConnections).toBe(960);
    expect(low.maxPending).toBe(240);
    expect(low.maxPendingPerAddress).toBe(120);
    expect(low.handshakeMs).toBe(5_000);
    expect(connectionLimits(1_048_576).maxPending).toBe(1_024);
    expect(lowFileLimitNote(1024)).toMatch(/file limit \(ulimit -n\) is 1024.*at most 960/);
    expect(lowFileLimitNote(65_536)).toBeUndefined();
  });
});
