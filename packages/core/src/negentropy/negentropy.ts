/**
 * Negentropy V1 (protocol version 0x61): range-based set reconciliation, byte-compatible with
 * hoytech/negentropy. Section numbers (§) are those of minca's Negentropy protocol description
 * (PROTOCOL.md beside the vectors' source), summarised in docs/spec §9.
 */
import { Bound, compareBounds } from './bound.js';
import { diffIds } from './ids.js';
import type { SyncItems } from './items.js';
import { malformed, Reader } from './reader.js';
import { NegentropySnapshot, snapshotItems } from './set.js';
import { type NegentropyStorage, sealedItems } from './storage.js';
import { Writer } from './writer.js';

const VERSION = 0x61;
const SKIP = 0;
const FINGERPRINT = 1;
const ID_LIST = 2;
/** The reference's constants; other values interoperate but would not match it byte for byte. */
const BUCKETS = 16;
const ID_LIST_BELOW = BUCKETS * 2;
/** Limits below this are refused, as by the reference; the slack keeps messages under a limit. */
const MIN_FRAME_SIZE_LIMIT = 4096;
const FRAME_SLACK = 200;

/** What {@link Negentropy.reconcile} returns. */
export interface ReconcileResult {
  /** The message to send back; `undefined` on the initiator once reconciliation is done. */
  reply?: Uint8Array;
  /** Ids this side holds and the peer lacks (initiator only; may repeat across rounds). */
  have: Uint8Array[];
  /** Ids the peer holds and this side lacks (initiator only; may repeat across rounds). */
  need: Uint8Array[];
}

/**
 * One side of a reconciliation over a sealed {@link NegentropyStorage} or a
 * {@link NegentropySnapshot} of a set. The initiator calls
 * {@link initiate} once, then {@link reconcile} with each reply until `reply` is undefined. A
 * responder (never initiated) keeps no state between messages, so a fresh instance per message
 * is as good as one kept: construction costs O(1).
 */
export class Negentropy {
  readonly #items: SyncItems;
  readonly #threshold: number;
  #initiator = false;
  /** Scratch for the items either side of a bucket boundary. */
  readonly #before = new Bound();
  readonly #after = new Bound();

  /**
   * @param storage a sealed storage or a set's snapshot (a TypeError otherwise)
   * @param frameSizeLimit the largest message {@link reconcile} may produce, in bytes; 0 means
   *   unlimited, else at least 4096 (a RangeError otherwise). {@link initiate} ignores it.
   */
  constructor(storage: NegentropyStorage | NegentropySnapshot, frameSizeLimit = 0) {
    this.#items =
      storage instanceof NegentropySnapshot ? snapshotItems(storage) : sealedItems(storage);
    if (
      !Number.isSafeInteger(frameSizeLimit) ||
      frameSizeLimit < 0 ||
      (frameSizeLimit > 0 && frameSizeLimit < MIN_FRAME_SIZE_LIMIT)
    ) {
      throw new RangeError(`frameSizeLimit: expected 0 or an integer >= ${MIN_FRAME_SIZE_LIMIT}`);
    }
    this.#threshold =
      frameSizeLimit === 0 ? Number.POSITIVE_INFINITY : frameSizeLimit - FRAME_SLACK;
  }

  /** Makes this side the initiator (client) and returns its first message (§6.2). */
  initiate(): Uint8Array {
    this.#initiator = true;
    const out = new Writer();
    out.byte(VERSION);
    this.#split(out, 0, this.#items.n, new Bound().infinity());
    return out.bytes();
  }

  /**
   * Processes a message from the peer (§6.3). Malformed, truncated or hostile input, and a
   * version other than 0x61 on the initiator, throw `MincaError('malformed')`. A responder
   * answers another version in 0x60..0x6f with the single byte `61`.
   */
  reconcile(msg: Uint8Array): ReconcileResult {
    if (!(msg instanceof Uint8Array)) throw new TypeError('msg: expected a Uint8Array');
    const have: Uint8Array[] = [];
    const need: Uint8Array[] = [];
    if (msg.length === 0) malformed('empty message');
    const version = msg[0]!;
    if (version < 0x60 || version > 0x6f) malformed(`not a protocol version: ${version}`);
    if (version !== VERSION) {
      if (this.#initiator) malformed(`unsupported protocol version: ${version}`);
      return { reply: Uint8Array.of(VERSION), have, need };
    }

    const items = this.#items;
    const initiator = this.#initiator;
    const threshold = this.#threshold;
    const r = new Reader(msg);
    r.pos = 1;
    const out = new Writer();
    out.byte(VERSION);
    const bound = new Bound();
    const prevBound = new Bound().zero();
    const endBound = new Bound();
    let prevIndex = 0;
    let pendingSkip = false;

    while (r.remaining > 0) {
      const mark = out.length;
      r.bound(bound);
      if (compareBounds(bound, prevBound) < 0) malformed('range bounds go backwards');
      const mode = r.varint(ID_LIST, 'mode');
      const lower = prevIndex;
      let upper = items.lowerBound(lower, bound);
      let keepOnTrip = false;

      if (mode === SKIP) {
        pendingSkip = true;
      } else if (mode === FINGERPRINT) {
        const at = r.take(16, 'fingerprint');
        if (equal16(items.fingerprint(lower, upper), msg, at)) {
          pendingSkip = true;
        } else {
          if (pendingSkip) writeSkip(out, prevBound);
          pendingSkip = false;
          this.#split(out, lower, upper, bound);
        }
      } else {
        const count = r.varint(Math.floor(r.remaining / 32), 'IdList count');
        const at = r.take(count * 32, 'IdList');
        if (initiator) {
          diffIds(items.packedIds(lower, upper), 0, upper - lower, msg, at, count, have, need);
          pendingSkip = true;
        } else {
          if (pendingSkip) writeSkip(out, prevBound);
          pendingSkip = false;
          // §7: stop before the first id that would take `out` (without the skip just
          // written) plus the ids so far past the threshold; the bound becomes that item.
          let n = upper - lower;
          endBound.copy(bound);
          if (threshold !== Number.POSITIVE_INFINITY) {
            const fits = mark > threshold ? 0 : Math.floor((threshold - mark) / 32) + 1;
            if (fits < n) {
              n = fits;
              upper = lower + n;
              items.item(upper, endBound);
            }
          }
          out.bound(endBound.hi, endBound.lo, endBound.src, endBound.off, endBound.len);
          out.byte(ID_LIST);
          out.varint(n);
          items.writeIds(out, lower, upper);
          keepOnTrip = true;
        }
      }

      if (out.length > threshold) {
        // §7: drop this range's part (a server IdList stays) and close with a fingerprint
        // of everything from `upper` on, bounded by INF.
        if (!keepOnTrip) out.truncate(mark);
        out.bound(0xffff_ffff, 0xffff_ffff, msg, 0, 0);
        out.byte(FINGERPRINT);
        const fp = items.fingerprint(upper, items.n);
        out.copy(fp, 0, 16);
        break;
      }
      prevIndex = upper;
      prevBound.copy(bound);
    }

    if (initiator && out.length === 1) return { have, need };
    return { reply: out.bytes(), have, need };
  }

  /** Covers items `[lower, upper)` with ranges ending at `upperBound` (§6.1). */
  #split(out: Writer, lower: number, upper: number, upperBound: Bound): void {
    const items = this.#items;
    const n = upper - lower;
    if (n < ID_LIST_BELOW) {
      out.bound(upperBound.hi, upperBound.lo, upperBound.src, upperBound.off, upperBound.len);
      out.byte(ID_LIST);
      out.varint(n);
      items.writeIds(out, lower, upper);
      return;
    }
    const q = Math.floor(n / BUCKETS);
    const extra = n % BUCKETS;
    const prev = this.#before;
    const next = this.#after;
    let start = lower;
    for (let b = 0; b < BUCKETS; b++) {
      const end = start + q + (b < extra ? 1 : 0);
      if (b === BUCKETS - 1) {
        out.bound(upperBound.hi, upperBound.lo, upperBound.src, upperBound.off, upperBound.len);
      } else {
        items.item(end - 1, prev);
        items.item(end, next);
        if (next.hi !== prev.hi || next.lo !== prev.lo) {
          out.bound(next.hi, next.lo, next.src, 0, 0);
        } else {
          // Same timestamp: the shortest prefix of the next id that sorts above the previous id.
          let shared = 0;
          while (shared < 31 && prev.src[prev.off + shared] === next.src[next.off + shared])
            shared++;
          out.bound(next.hi, next.lo, next.src, next.off, shared + 1);
        }
      }
      out.byte(FINGERPRINT);
      out.copy(items.fingerprint(start, end), 0, 16);
      start = end;
    }
  }
}

function writeSkip(out: Writer, bound: Bound): void {
  out.bound(bound.hi, bound.lo, bound.src, bound.off, bound.len);
  out.byte(SKIP);
}

function equal16(fp: Uint8Array, msg: Uint8Array, at: number): boolean {
  for (let i = 0; i < 16; i++) if (fp[i] !== msg[at + i]) return false;
  return true;
}
