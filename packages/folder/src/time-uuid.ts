/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Temp files and journals
 * are named with one, so their age is in their name and a folder sorts them by time.
 */

let lastMs = 0;
let counter = 0;

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** A fresh UUIDv7, lowercase; ids made in one process sort in the order they were made. */
export function timeUuid(now: number = Date.now()): string {
  // A 12-bit counter in rand_a keeps ids made in one millisecond in order.
  if (now <= lastMs) {
    counter++;
    if (counter > 0xfff) {
      lastMs++;
      counter = 0;
    }
  } else {
    lastMs = now;
    counter = 0;
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ms = lastMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The milliseconds a UUIDv7 was made at, or `undefined` for another kind of UUID. */
export function uuidTime(uuid: string): number | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid)) {
    return undefined;
  }
  return Number.parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16);
}
