/**
 * The node's side of the service worker's media reads (media-protocol.ts), on a port the page
 * handed over: a read opens with the request's `Range` header, answers what it will send, then
 * gives one piece per pull. A read nobody pulls for a minute lets go of its file (a paused
 * video), and opens it again where it was if pulled later.
 */
import { isMincaError } from '@minca/core';
import type { MediaAnswer, MediaAsk, MediaHead } from '../media-protocol.js';
import { answerRange } from '../media-range.js';
import type { RangeFile } from './file-range.js';

/** A read not pulled for this long closes its file, ms. */
const IDLE_MS = 60_000;
/**
 * Reads kept per port: a player has one or two under way; the rest are ones the service worker
 * forgot (it was stopped), dropped least recently pulled first.
 */
const MAX_READS = 32;

/** Opens the video `file` of post `post` in `space`, for reading by range. */
export interface MediaOpener {
  openMedia(space: string, post: string, file: string): Promise<RangeFile>;
}

interface Read {
  ask: { space: string; post: string; file: string };
  /** The next byte to give, and the end of the range. */
  at: number;
  end: number;
  /** The file while the read holds it; its pieces from the first pull on. */
  open?: { file: RangeFile; pieces?: AsyncIterator<Uint8Array> };
  idle?: ReturnType<typeof setTimeout>;
}

const statusOf = (error: unknown) =>
  isMincaError(error) && error.code === 'invalid_input'
    ? 404
    : isMincaError(error) && error.code === 'closed'
      ? 503
      : 500;

/** A piece the port can transfer: its own buffer, whole. */
const own = (piece: Uint8Array) =>
  piece.byteOffset === 0 && piece.byteLength === piece.buffer.byteLength ? piece : piece.slice();

export function serveMedia(port: MessagePort, opener: MediaOpener): void {
  const reads = new Map<number, Read>();
  const send = (answer: MediaAnswer) =>
    'piece' in answer
      ? port.postMessage(answer, [answer.piece.buffer as ArrayBuffer])
      : port.postMessage(answer);

  const letGo = async (read: Read) => {
    clearTimeout(read.idle);
    const open = read.open;
    read.open = undefined;
    if (!open) return;
    await open.pieces?.return?.().catch(() => undefined);
    await open.file.close().catch(() => undefined);
  };
  const end = (id: number) => {
    const read = reads.get(id);
    reads.delete(id);
    if (read) void letGo(read);
  };

  const open = async (ask: Extract<MediaAsk, { open: number }>) => {
    const { open: id, space, post, file } = ask;
    try {
      const media = await opener.openMedia(space, post, file);
      const range = answerRange(ask.range, media.size);
      const head: MediaHead =
        range.status === 416
          ? { status: 416, size: media.size, start: 0, end: 0, mime: media.mime }
          : { ...range, size: media.size, mime: media.mime };
      if (head.end > head.start) {
        const read: Read = { ask: { space, post, file }, at: head.start, end: head.end };
        read.open = { file: media };
        read.idle = setTimeout(() => void letGo(read), IDLE_MS);
        reads.set(id, read);
        for (const [old] of reads) {
          if (reads.size <= MAX_READS) break;
          end(old);
        }
      } else await media.close();
      send({ id, head });
    } catch (error) {
      send({ id, error: { status: statusOf(error), message: (error as Error).message } });
    }
  };

  const pull = async (id: number) => {
    const read = reads.get(id);
    if (!read) return send({ id, error: { status: 410, message: 'this read has ended' } });
    clearTimeout(read.idle);
    // Last pulled, last to go (see MAX_READS).
    reads.delete(id);
    reads.set(id, read);
    try {
      if (!read.open) {
        const file = await opener.openMedia(read.ask.space, read.ask.post, read.ask.file);
        if (!reads.has(id)) return void (await file.close());
        read.open = { file };
      }
      // Nothing is read before the browser pulls: a request it drops at once costs nothing.
      read.open.pieces ??= read.open.file.read(read.at, read.end);
      const next = await read.open.pieces.next();
      if (!reads.has(id)) return; // cancelled meanwhile
      if (next.done) {
        end(id);
        return send({ id, done: true });
      }
      read.at += next.value.length;
      read.idle = setTimeout(() => void letGo(read), IDLE_MS);
      send({ id, piece: own(next.value) });
    } catch (error) {
      end(id);
      send({ id, error: { status: statusOf(error), message: (error as Error).message } });
    }
  };

  port.onmessage = ({ data }) => {
    const ask = data as MediaAsk | null;
    if (!ask || typeof ask !== 'object') return;
    if ('open' in ask) void open(ask);
    else if ('pull' in ask) void pull(ask.pull);
    else if ('cancel' in ask) end(ask.cancel);
  };
}
