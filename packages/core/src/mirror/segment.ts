/**
 * Mirror segments (spec 05 §16.2): a writer's packs of version bytes in a blob store. A segment
 * holds envelopes exactly as signed, so a node without the space key can write and read them.
 * Its key names the space, the writer, a counter and the segment's own hash, so a reader checks
 * the bytes before trusting any of them, and no name is ever reused for other contents.
 */
import { toHex } from '../bytes.js';
import { decodeStrict, encodeCbor } from '../encoding.js';
import { MincaError } from '../errors.js';
import { hashId, SPACE_ID } from '../ids.js';
import { MAX_VERSION_BYTES } from '../version.js';

export const SEGMENT_FORMAT = 1;
/** Version bytes a segment holds, about: packing stops before a version would pass this. */
export const SEGMENT_BYTES = 256 * 1024;
/** Largest segment a reader accepts: one version of the largest size, plus framing. */
export const MAX_SEGMENT_BYTES = Math.max(SEGMENT_BYTES, MAX_VERSION_BYTES) + 64 * 1024;
/** A writer id: what `randomId` makes. */
export const WRITER_ID = SPACE_ID;
/** Digits of the counter in a segment name, zero-padded so names sort by counter. */
const COUNTER_DIGITS = 10;
export const MAX_COUNTER = 10 ** COUNTER_DIGITS - 1;
/** Hex digits of the segment's SHA-256 in its name. */
const HASH_HEX = 16;
const NAME = /^(\d{10})-([0-9a-f]{16})/;

/** Where a segment lives, parsed from its key. */
export interface SegmentName {
  key: string;
  space: string;
  writer: string;
  counter: number;
  /** The first 16 hex of the segment's SHA-256. */
  hash: string;
}

/** What a segment says. */
export interface Segment {
  space: string;
  writer: string;
  counter: number;
  /** Version envelopes, as signed: not yet decoded or verified. */
  versions: Uint8Array[];
}

/** The prefix every segment of a space shares in a mirror. */
export const spacePrefix = (space: string) => `${space}/`;
/** The prefix of one writer's segments of a space. */
export const writerPrefix = (space: string, writer: string) => `${space}/${writer}/`;

/**
 * Parses a segment key, `<space>/<writer>/<counter>-<hash>`; `undefined` for any other key. The
 * last part may carry more after the hash (a sync service's conflict copy): it is a segment all
 * the same, checked by its hash.
 */
export function parseSegmentKey(key: string): SegmentName | undefined {
  const parts = key.split('/');
  if (parts.length !== 3) return undefined;
  const [space, writer, last] = parts as [string, string, string];
  const match = NAME.exec(last);
  if (!SPACE_ID.test(space) || !WRITER_ID.test(writer) || !match) return undefined;
  return { key, space, writer, counter: Number(match[1]), hash: match[2]! };
}

/** Encodes a segment and gives its key. */
export function encodeSegment(segment: Segment): { key: string; bytes: Uint8Array } {
  if (
    !Number.isSafeInteger(segment.counter) ||
    segment.counter < 0 ||
    segment.counter > MAX_COUNTER
  )
    throw new RangeError(`segment counter ${segment.counter} is out of range`);
  const bytes = encodeCbor({
    f: SEGMENT_FORMAT,
    s: segment.space,
    w: segment.writer,
    n: segment.counter,
    v: segment.versions,
  });
  const counter = String(segment.counter).padStart(COUNTER_DIGITS, '0');
  const hash = toHex(hashId(bytes)).slice(0, HASH_HEX);
  return { key: `${writerPrefix(segment.space, segment.writer)}${counter}-${hash}`, bytes };
}

const malformed = (name: SegmentName, why: string): never => {
  throw new MincaError('malformed', `segment ${name.key} ${why}`);
};

/**
 * Decodes the bytes found under a segment's key: the hash in its name must match, and the
 * segment must name the same space, writer and counter. `malformed` otherwise (a damaged, half
 * copied or misplaced segment). The versions inside are still to be verified.
 */
export function decodeSegment(name: SegmentName, bytes: Uint8Array): Segment {
  if (bytes.length > MAX_SEGMENT_BYTES) malformed(name, `is over ${MAX_SEGMENT_BYTES} bytes`);
  if (toHex(hashId(bytes)).slice(0, HASH_HEX) !== name.hash)
    malformed(name, 'does not hash to its name');
  let value: Record<string, unknown>;
  try {
    value = decodeStrict(bytes, { maxBytes: MAX_SEGMENT_BYTES, maxDepth: 2 }) as Record<
      string,
      unknown
    >;
  } catch (cause) {
    throw new MincaError('malformed', `segment ${name.key} does not decode`, { cause });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    malformed(name, 'is not a map');
  if (Object.keys(value).sort().join(',') !== 'f,n,s,v,w') malformed(name, 'has unexpected fields');
  if (value.f !== SEGMENT_FORMAT) malformed(name, `has unknown format ${String(value.f)}`);
  if (value.s !== name.space || value.w !== name.writer || value.n !== name.counter)
    malformed(name, 'names another place than its key');
  const versions = value.v;
  if (
    !Array.isArray(versions) ||
    versions.length === 0 ||
    !versions.every((v) => v instanceof Uint8Array && v.length <= MAX_VERSION_BYTES)
  )
    malformed(name, 'does not hold a list of versions');
  return {
    space: name.space,
    writer: name.writer,
    counter: name.counter,
    versions: versions as Uint8Array[],
  };
}
