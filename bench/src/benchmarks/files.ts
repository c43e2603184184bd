// Files: addFile and readFile of a 64 MiB file on @minca/memory, and a 64 MiB transfer between
// two Node processes over a loopback WebSocket (the integration tests' node fixture), each beside
// the raw speed of what every byte must go through — XChaCha20-Poly1305 and SHA-256 over the
// same 256 KiB chunks — measured in the same run: the limit.
import { randomBytes } from 'node:crypto';
import { CHUNK_BYTES, createNode, hashId, openSealed, randomKey, seal } from '@minca/core';
import { ChildNode } from '@minca/integration-tests/child-node';
import { memoryStores } from '@minca/memory';
import { type Benchmark, median } from '../harness.js';

const SIZE = Number(process.env.MINCA_BENCH_FILE_MIB ?? 64) * 1024 * 1024;
const RUNS = 3;
const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);

/** Seal then hash every chunk (what addFile must do), and hash then open (what readFile must). */
function raw(bytes: Uint8Array): { sealMs: number; openMs: number } {
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
    hashId(chunk);
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

async function transfers(runs: number): Promise<number[]> {
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

const bench: Benchmark = {
  name: 'files',
  async run() {
    const bytes = new Uint8Array(randomBytes(SIZE));
    raw(bytes);
    const raws = Array.from({ length: RUNS }, () => raw(bytes));
    const sealRate = mbps(SIZE, median(raws.map((r) => r.sealMs)));
    const openRate = mbps(SIZE, median(raws.map((r) => r.openMs)));
    await local(bytes);
    const locals: Array<{ addMs: number; readMs: number }> = [];
    for (let i = 0; i < RUNS; i++) locals.push(await local(bytes));
    const add = mbps(SIZE, median(locals.map((r) => r.addMs)));
    const read = mbps(SIZE, median(locals.map((r) => r.readMs)));
    const wire = mbps(SIZE, median(await transfers(2)));
    const mib = `${SIZE / 1024 / 1024} MiB`;
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
        note: `${(wire / openRate).toFixed(2)}× raw hash + open`,
      },
    ];
  },
};
export default bench;
