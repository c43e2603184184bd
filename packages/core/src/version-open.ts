/**
 * Opening a version's sealed body (spec 05 §3.3): bound to the envelope before it, under
 * whichever of a space's keys sealed it, then decoded strictly as a body. Versions from outside,
 * stored ones read back, and listings all open here.
 */
import { assertBody, type BodyValue, MAX_BODY_BYTES } from './body.js';
import { scratchConcat, utf8 } from './bytes.js';
import { decodeStrict } from './encoding.js';
import { bodyOf, headerLength } from './envelope.js';
import { MincaError } from './errors.js';
import { openSalted, SaltedOpenings } from './seal.js';
import type { Version } from './version-format.js';

const BODY_CONTEXT = utf8('minca/body/v2\n');

/** Where a body's associated data is put together: it holds what the envelope says in the clear. */
const aadOf = scratchConcat();

/**
 * What a sealed body is bound to: the envelope before it, so it can't move to another version.
 * A view of a buffer kept for it, good until the next call.
 */
export function bodyAad(header: Uint8Array): Uint8Array {
  return aadOf(BODY_CONTEXT, header);
}

/** Opens a version's body with the space key. `invalid_version` if it won't open or decode. */
export function openBody(version: Version, spaceKey: Uint8Array): BodyValue | null {
  return openWithKeys(version, [spaceKey]);
}

/**
 * Opens a version's body with whichever of a space's keys sealed it (spec 05 §7.4: a space key
 * changes when a member leaves), trying the newest first. `invalid_version` if none opens it.
 */
export function openWithKeys(version: Version, keys: readonly Uint8Array[]): BodyValue | null {
  if (version.sealedBody === null) return null;
  return openSealed(
    version.bytes.subarray(0, headerLength(version.bytes)),
    version.sealedBody,
    keys,
  );
}

/**
 * Opens the body of a stored version's bytes (read strictly when they came in) with whichever
 * of `keys` sealed it, without decoding the rest of the envelope: how many records are read.
 */
export function openStored(bytes: Uint8Array, keys: readonly Uint8Array[]): BodyValue | null {
  const { headerEnd, body } = bodyOf(bytes);
  return body === null ? null : openSealed(bytes.subarray(0, headerEnd), body, keys);
}

/**
 * The bodies of many stored versions' bytes, as {@link openStored} opens each, on the platform's
 * cores where it can: each body, `null` for a tombstone, `undefined` where it does not open or
 * decode. Each key is tried, newest first, on what the newer ones did not open; where the
 * platform fails, they are opened here.
 */
export async function openStoredMany(
  list: readonly Uint8Array[],
  keys: readonly Uint8Array[],
): Promise<Array<BodyValue | null | undefined>> {
  const out: Array<BodyValue | null | undefined> = list.map(() => undefined);
  const headerEnds: number[] = [];
  const sealed: Uint8Array[] = [];
  let pending: number[] = [];
  let size = 0;
  list.forEach((bytes, i) => {
    try {
      const { headerEnd, body } = bodyOf(bytes);
      if (body === null) out[i] = null;
      else {
        headerEnds[i] = headerEnd;
        sealed[i] = body;
        pending.push(i);
        size += BODY_CONTEXT.length + bytes.length;
      }
    } catch {
      // Not a version: it does not stand.
    }
  });
  try {
    for (let k = keys.length - 1; k >= 0 && pending.length > 0; k--) {
      const openings = new SaltedOpenings(keys[k]!, pending.length, size);
      const added = pending.filter((i) =>
        openings.add(sealed[i]!, bodyAad(list[i]!.subarray(0, headerEnds[i]))),
      );
      const opened = await openings.open();
      const left: number[] = [];
      added.forEach((i, j) => {
        const plain = opened[j];
        if (!plain) left.push(i);
        else
          try {
            out[i] = decodeBody(plain);
          } catch {
            // Opened but not a body: no other key would make it one.
          }
      });
      pending = left;
    }
  } catch {
    // The platform failed: what is left opens here, one at a time.
    for (const i of pending)
      try {
        out[i] = openStored(list[i]!, keys);
      } catch {
        // It does not open or decode.
      }
  }
  return out;
}

function openSealed(
  header: Uint8Array,
  sealed: Uint8Array,
  keys: readonly Uint8Array[],
): BodyValue {
  const aad = bodyAad(header);
  let failure: unknown;
  for (let i = keys.length - 1; i >= 0; i--) {
    let plain: Uint8Array;
    try {
      plain = openSalted(keys[i]!, sealed, aad);
    } catch (error) {
      failure = error;
      continue;
    }
    return decodeBody(plain);
  }
  throw failure ?? new MincaError('invalid_version', 'no key to open the version with');
}

/** A body's plaintext, decoded and checked as a body (spec 05 §3.3); `invalid_version` if not one. */
export function decodeBody(plain: Uint8Array): BodyValue {
  let body: unknown;
  try {
    body = decodeStrict(plain, { maxBytes: MAX_BODY_BYTES, maxDepth: 33 });
    assertBody(body);
  } catch (cause) {
    throw new MincaError('invalid_version', 'version body does not decode', { cause });
  }
  return body;
}
