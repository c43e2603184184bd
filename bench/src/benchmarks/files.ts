// Files: addFile and readFile of a 64 MiB file on @minca/memory, and a 64 MiB transfer between
// two Node processes over a loopback WebSocket (the integration tests' node fixture), each beside
// the raw speed of what every byte must go through — XChaCha20-Poly1305 and SHA-256 over the
// same 256 KiB chunks — measured in the same run: the limit. Then one 256 MiB file read from 1, 2
// and 3 peers at once, each held to the same send rate (a throttled memory transport), beside
// the time from one: several peers at once should add up.
import { randomBytes } from 'node:crypto';
import {
  CHUNK_BYTES,
  createNode,
  hashChunk,
  hashId,
  openSealed,
  randomKey,
  seal,
} from '@minca/core';
import { ChildNode } from '@minca/integration-tests/child-node';
import { memoryStores } from '@minca/memory';
import { peersScene } from '../file-peers.js';
import { type Benchmark, median } from '../harness.js';

const MIB = 1024 * 1024;
const SIZE = Number(process.env.MINCA_BENCH_FILE_MIB ?? 64) * MIB;
const RUNS = 3;
// The file read from several peers; quicker runs take less.
const PEERS_SIZE = Number(process.env.MINCA_BENCH_PEERS_FILE_MIB ?? 256) * MIB;
const PEER_RUNS = Number(process.env.MINCA_BENCH_PEER_RUNS ?? 1);
// Each peer's send rate, MB/s. By default a tenth of the raw hash + open rate of this run, so
// three peers at once stay well inside what the reader can check and open (all nodes share
// this process): the figure is about asking peers in parallel, not about the CPU.
const PEER_MBPS = process.env.MINCA_BENCH_PEER_MBPS;
const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

/**
 * Seal then hash every chunk (what addFile must do), and hash then open (what readFile must).
 * Each side hashes as the library does: addFile with @noble/hashes, a read's check with
 * `hashChunk` (WebCrypto where the runtime has it).
 */
async function raw(bytes: Uint8Array): Promise<{ sealMs: number; openMs: number }> {
  const key = randomKey();
  const sealed: Uint8Array[] = [];
  let start = performance.now();
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    const chunk = seal(key, bytes.subarray(at, at + CHUNK_BYTES));
    hashId(chunk);
    sealed.push(chunk);
  }
  const sealMs = performance.now() - start;
  start = performance.now();
  for (const chunk of sealed) {
    await hashChunk(chunk);
    openSealed(key, chunk);
  }
  return { sealMs, openMs: performance.now() - start };
}

async function local(bytes: Uint8Array): Promise<{ addMs: number; readMs: number }> {
  const node = await createNode({ stores: memoryStores() });
  try {
    const space = (await node.spaces.create()).id;
    let start = performance.now();
    const ref = await node.records.addFile(space, bytes);
    const addMs = performance.now() - start;
    await node.records.put(space, 'app.file', { ref });
    start = performance.now();
    const back = await node.records.readFile(space, ref);
    const readMs = performance.now() - start;
    if (back.length !== bytes.length) throw new Error('readFile gave the wrong size');
    return { addMs, readMs };
  } finally {
    await node.close();
  }
}

/** A fixture process with room for 64 MiB files, given up to 10 minutes an answer. */
const child = (role: 'serve' | 'join') =>
  new ChildNode(role, 0, { nodeArgs: ['--max-old-space-size=4096'], timeoutMs: 600_000 });

/**
 * Reads `runs` files (after one to warm up) from a peer process; `before` runs before each read,
 * while both processes idle (the raw limit is taken there, so a busy machine skews both alike).
 */
async function transfers(runs: number, before: () => Promise<void>): Promise<number[]> {
  const server = child('serve');
  const client = child('join');
  try {
    const { port } = await server.ask<{ port: number }>({ cmd: 'start' });
    const { did } = await client.ask<{ did: string }>({ cmd: 'start' });
    const { ticket } = await server.ask<{ ticket: unknown }>({ cmd: 'grant', did });
    const refs: Array<{ ref: unknown; sha: string }> = [];
    for (let i = 0; i < runs + 1; i++) refs.push(await server.ask({ cmd: 'addFile', size: SIZE }));
    await client.ask({ cmd: 'join', ticket, port });
    const times: number[] = [];
    for (const [i, { ref, sha }] of refs.entries()) {
      if (i > 0) await before();
      const read = await client.ask<{ ms: number; sha: string }>({ cmd: 'readFile', ref });
      if (read.sha !== sha) throw new Error('the file read is not the file added');
      if (i > 0) times.push(read.ms); // the first warms up
    }
    await client.ask({ cmd: 'stop' });
    await server.ask({ cmd: 'stop' });
    return times;
  } finally {
    server.kill();
    client.kill();
  }
}

/** Median ms to read the file from 1, 2 and 3 peers each sending at `rate` bytes/s. */
async function fromPeers(rate: number): Promise<number[]> {
  const scene = await peersScene(PEERS_SIZE, 3, 3 * PEER_RUNS);
  try {
    const times: number[] = [];
    for (const count of [1, 2, 3]) {
      const runs: number[] = [];
      for (let i = 0; i < PEER_RUNS; i++) runs.push(await scene.read(count, rate));
      times.push(median(runs));
    }
    return times;
  } finally {
    await scene.close();
  }
}

const bench: Benchmark = {
  name: 'files',
  async run() {
    const bytes = new Uint8Array(randomBytes(SIZE));
    await raw(bytes);
    const raws: Array<{ sealMs: number; openMs: number }> = [];
    for (let i = 0; i < RUNS; i++) raws.push(await raw(bytes));
    const sealRate = mbps(SIZE, median(raws.map((r) => r.sealMs)));
    const openRate = mbps(SIZE, median(raws.map((r) => r.openMs)));
    await local(bytes);
    const locals: Array<{ addMs: number; readMs: number }> = [];
    for (let i = 0; i < RUNS; i++) locals.push(await local(bytes));
    const add = mbps(SIZE, median(locals.map((r) => r.addMs)));
    const read = mbps(SIZE, median(locals.map((r) => r.readMs)));
    // Beside each read from a peer, the raw limit taken just before it.
    const rawsBeside: number[] = [];
    const wireTimes = await transfers(RUNS, async () => {
      rawsBeside.push(mbps(SIZE, (await raw(bytes)).openMs));
    });
    const wire = mbps(SIZE, median(wireTimes));
    const wireRatio = median(wireTimes.map((ms, i) => mbps(SIZE, ms) / rawsBeside[i]!));
    const rate = (PEER_MBPS ? Number(PEER_MBPS) : Math.round(openRate / 10)) * 1e6;
    const peers = (await fromPeers(rate)).map((ms) => mbps(PEERS_SIZE, ms));
    const mib = `${SIZE / MIB} MiB`;
    const limit = `${rate / 1e6} MB/s`;
    const fromPeersFigures = peers.map((peer, i) => ({
      name: `readFile ${PEERS_SIZE / MIB} MiB from ${i + 1} peer${i ? 's' : ''} at ${limit} each`,
      value: peer,
      unit: 'MB/s',
      note:
        i === 0
          ? `${(peer / (rate / 1e6)).toFixed(2)}× the rate`
          : `${(peer / peers[0]!).toFixed(2)}× one peer`,
    }));
    return [
      { name: `raw seal + SHA-256, ${mib}`, value: sealRate, unit: 'MB/s', note: 'the limit' },
      { name: `raw SHA-256 + open, ${mib}`, value: openRate, unit: 'MB/s', note: 'the limit' },
      {
        name: `addFile ${mib}, memory`,
        value: add,
        unit: 'MB/s',
        note: `${(add / sealRate).toFixed(2)}× raw seal + hash`,
      },
      {
        name: `readFile ${mib} held here, memory`,
        value: read,
        unit: 'MB/s',
        note: `${(read / openRate).toFixed(2)}× raw hash + open`,
      },
      {
        name: `readFile ${mib} from a peer, WebSocket between processes`,
        value: wire,
        unit: 'MB/s',
        note: `${wireRatio.toFixed(2)}× raw hash + open taken beside each read`,
      },
      ...fromPeersFigures,
    ];
  },
};
export default bench;
