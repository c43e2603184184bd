// A file far larger than memory should be, in and out with bounded memory: a 1 GiB file
// added from a stream, read back as a stream here, and read as a stream by a peer process over
// a loopback WebSocket, each node in a process of its own (file-stream-node.ts) so its peak RSS
// is its own, with its stores in a folder on disk. Beside each peak, that of a node process
// doing nothing (the floor), and beside each rate the raw rate of the cipher and hash every
// byte goes through, measured in the parent in this run.
// MINCA_BENCH_STREAM_MIB sets the size (default 1024).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CHUNK_BYTES, hashChunk, openSealed, randomKey, SigningKey, seal } from '@minca/core';
import { type Benchmark, median } from '../harness.js';

const MIB = 1024 * 1024;
const SIZE_MIB = Number(process.env.MINCA_BENCH_STREAM_MIB ?? 1024);
/** What the issue asks: a 1 GiB file in and out under this peak RSS. */
const LIMIT_MIB = 200;
const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'file-stream-node.js');

type Answer = Record<string, unknown> & { peakMiB: number };

/** A job in its own process: its answers line by line, `send` to write it a line. */
function job(command: Record<string, unknown>) {
  const child = spawn(process.execPath, [script, JSON.stringify(command)], { stdio: 'pipe' });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ended = new Promise<void>((resolve, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command.cmd} ended ${code}: ${stderr}`)),
    ),
  );
  ended.catch(() => undefined);
  return {
    async answer(): Promise<Answer> {
      const next = await Promise.race([lines.next(), ended.then(() => undefined)]);
      if (!next || next.done) {
        await ended;
        throw new Error(`${command.cmd} ended without an answer: ${stderr}`);
      }
      return JSON.parse(next.value) as Answer;
    },
    send: (line: string) => child.stdin.write(`${line}\n`),
    ended,
    kill: () => child.kill('SIGKILL'),
  };
}

async function once(command: Record<string, unknown>): Promise<Answer> {
  const j = job(command);
  try {
    const answer = await j.answer();
    await j.ended;
    return answer;
  } finally {
    j.kill();
  }
}

/**
 * What every byte goes through, over 64 MiB in 256 KiB chunks, as the library does it: seal then
 * SHA-256 (an add), SHA-256 then open (a read), each hash through `hashChunk` (WebCrypto). The
 * median of 3 runs after one to warm up, MB/s each.
 */
async function rawRates(): Promise<{ seal: number; open: number }> {
  const key = randomKey();
  const chunk = new Uint8Array(CHUNK_BYTES).fill(7);
  const count = (64 * MIB) / CHUNK_BYTES;
  const rate = (ms: number) => (64 * MIB) / 1e6 / (ms / 1000);
  const seals: number[] = [];
  const opens: number[] = [];
  for (let run = 0; run < 4; run++) {
    const sealed: Uint8Array[] = [];
    let start = performance.now();
    for (let i = 0; i < count; i++) {
      const s = seal(key, chunk);
      await hashChunk(s);
      sealed.push(s);
    }
    seals.push(rate(performance.now() - start));
    start = performance.now();
    for (const s of sealed) {
      await hashChunk(s);
      openSealed(key, s);
    }
    opens.push(rate(performance.now() - start));
  }
  return { seal: median(seals.slice(1)), open: median(opens.slice(1)) };
}

const bench: Benchmark = {
  name: 'file-stream',
  async run() {
    const root = await mkdtemp(join(tmpdir(), 'minca-file-stream-'));
    try {
      const owner = { dir: join(root, 'owner'), secret: hex(SigningKey.generate().exportSecret()) };
      const readerKey = SigningKey.generate();
      const reader = { dir: join(root, 'reader'), secret: hex(readerKey.exportSecret()) };
      const idle = await once({ cmd: 'idle', dir: join(root, 'idle'), secret: owner.secret });
      const added = await once({ cmd: 'add', ...owner, mib: SIZE_MIB });
      const read = await once({ cmd: 'read', ...owner, space: added.space, ref: added.ref });
      if (read.sha !== added.sha) throw new Error('the file read back is not the file added');
      const server = job({ cmd: 'serve', ...owner, space: added.space, reader: readerKey.did });
      let fetched: Answer;
      let served: Answer;
      try {
        const { port, ticket } = await server.answer();
        fetched = await once({ cmd: 'fetch', ...reader, port, ticket, ref: added.ref });
        server.send('report');
        served = await server.answer();
      } finally {
        server.kill();
      }
      if (fetched.sha !== added.sha) throw new Error('the file fetched is not the file added');
      // Last, so the children never start from a parent grown by it.
      const raw = await rawRates();
      const size = `${SIZE_MIB} MiB`;
      const rate = (a: Answer) => (SIZE_MIB * MIB) / 1e6 / ((a.ms as number) / 1000);
      const peak = (name: string, a: Answer) => ({
        name,
        value: a.peakMiB,
        unit: 'MiB',
        note: `peak RSS; limit ${LIMIT_MIB} MiB; idle node ${idle.peakMiB.toFixed(0)} MiB`,
      });
      const speed = (name: string, a: Answer, limit: number, what: string) => ({
        name,
        value: rate(a),
        unit: 'MB/s',
        note: `${(rate(a) / limit).toFixed(2)}× raw ${what}`,
      });
      return [
        {
          name: 'idle node process',
          value: idle.peakMiB,
          unit: 'MiB',
          note: 'peak RSS: the floor',
        },
        peak(`addFile ${size} from a stream, directory stores`, added),
        peak(`openFile ${size} read back as a stream`, read),
        peak(`openFile ${size} streamed from a peer process, the reader`, fetched),
        peak(`serving ${size} to that peer`, served),
        { name: 'raw seal + SHA-256', value: raw.seal, unit: 'MB/s', note: 'the limit of an add' },
        { name: 'raw SHA-256 + open', value: raw.open, unit: 'MB/s', note: 'the limit of a read' },
        speed(`addFile ${size} from a stream`, added, raw.seal, 'seal + SHA-256'),
        speed(`openFile ${size} read back as a stream`, read, raw.open, 'SHA-256 + open'),
        speed(
          `openFile ${size} streamed from a peer over WebSocket`,
          fetched,
          raw.open,
          'SHA-256 + open',
        ),
      ];
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
};
export default bench;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
