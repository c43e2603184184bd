/**
 * A collection's Negentropy set as the store keeps it (spec 05 §5.2): its blocks, each an entry
 * `n/<collection>/<first item>` whose value is the block's items, so a store opens by reading a
 * few hundred bytes per block rather than decoding an index entry per version.
 *
 * A page's value is its `n` ids (32 bytes each, in order), then their timestamps (8 bytes each,
 * big-endian). Its key names its first item: 16 lowercase hex digits of the timestamp, then the
 * id's 64, so pages list in the set's order.
 */
import { toHex } from './bytes.js';
import { MincaError } from './errors.js';
import { type Block, blockOfItems } from './negentropy/block.js';
import { compareItems } from './negentropy/sort.js';

/** Prefix of every page: `n/<collection>/<first item>`. */
export const PAGE_PREFIX = 'n/';
const ITEM_BYTES = 40;
/** More items than this in one page is damage, not a page. */
const MAX_PAGE_ITEMS = 1 << 16;

export const pagesOf = (collection: string) => `${PAGE_PREFIX}${collection}/`;

/**
 * Page keys by the room (block.ts) of the blocks they name: a block appended to starts with the
 * same item as the one before it, so a put into the last block names the same page again.
 */
const roomKeys = new WeakMap<object, { collection: string; key: string }>();

/** The key of the page holding `block`. */
export function pageKey(collection: string, block: Block): string {
  // A room's first item never changes, and a block with one starts at it (block.ts, appendTo).
  const room = block.room;
  const known = room && roomKeys.get(room);
  if (known && known.collection === collection) return known.key;
  const hi = block.hi[0]!.toString(16).padStart(8, '0');
  const lo = block.lo[0]!.toString(16).padStart(8, '0');
  const key = `${pagesOf(collection)}${hi}${lo}${toHex(block.ids.subarray(0, 32))}`;
  if (room) roomKeys.set(room, { collection, key });
  return key;
}

export function encodePage(block: Block): Uint8Array {
  const n = block.n;
  const out = new Uint8Array(n * ITEM_BYTES);
  out.set(block.ids.subarray(0, n * 32));
  const view = new DataView(out.buffer, n * 32);
  for (let i = 0; i < n; i++) {
    view.setUint32(8 * i, block.hi[i]!);
    view.setUint32(8 * i + 4, block.lo[i]!);
  }
  return out;
}

/**
 * The block a page holds, checked: whole items, strictly in order, the first one the one its key
 * names, all after `after` (the previous page's block). `corrupt` otherwise.
 */
export function decodePage(
  collection: string,
  key: string,
  bytes: Uint8Array,
  after?: Block,
): Block {
  const n = bytes.length / ITEM_BYTES;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_ITEMS)
    throw new MincaError('corrupt', `page ${key} is not a whole number of items`);
  const ids = bytes.slice(0, n * 32);
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset + n * 32, n * 8);
  for (let i = 0; i < n; i++) {
    hi[i] = view.getUint32(8 * i);
    lo[i] = view.getUint32(8 * i + 4);
    // Timestamps are safe integers (spec 05 §3.1): a high half past 2^21 is damage.
    if (hi[i]! >= 0x20_0000) throw new MincaError('corrupt', `page ${key} holds a bad timestamp`);
    if (
      i > 0 &&
      compareItems(hi[i - 1]!, lo[i - 1]!, ids, 32 * (i - 1), hi[i]!, lo[i]!, ids, 32 * i) >= 0
    )
      throw new MincaError('corrupt', `page ${key} is out of order`);
  }
  const block = blockOfItems(ids, hi, lo);
  if (pageKey(collection, block) !== key)
    throw new MincaError('corrupt', `page ${key} does not start with the item it names`);
  if (after) {
    const l = after.n - 1;
    if (compareItems(after.hi[l]!, after.lo[l]!, after.ids, 32 * l, hi[0]!, lo[0]!, ids, 0) >= 0)
      throw new MincaError('corrupt', `page ${key} overlaps the page before it`);
  }
  return block;
}
