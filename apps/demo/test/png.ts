/**
 * A real PNG of `width`×`height`, stripes of one colour, for photo uploads in the tests; with
 * `noise`, random pixels instead, which don't compress: a file of about 3 bytes a pixel.
 */
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A picture that looks like one: a sunset, sky to sea, for the screenshots. */
export function sunsetPng(width: number, height: number): Buffer {
  const rows = Buffer.alloc(height * (1 + width * 3));
  const horizon = Math.round(height * 0.62);
  const [sunX, sunY, sunR] = [
    width * 0.62,
    horizon - height * 0.08,
    Math.min(width, height) * 0.14,
  ];
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const t = y / horizon;
      let rgb: number[] =
        y < horizon
          ? [250 - 40 * t, 120 + 60 * t, 90 + 30 * (1 - t)]
          : [40 + 60 * ((y - horizon) / (height - horizon)), 70, 120];
      const d = Math.hypot(x - sunX, y - sunY);
      if (d < sunR && y < horizon) rgb = [255, 230, 150];
      else if (
        y >= horizon &&
        Math.abs(x - sunX) < sunR * (1 - (y - horizon) / height) &&
        (y >> 2) % 3 === 0
      )
        rgb = [240, 170, 110];
      rows.set(
        rgb.map((c) => Math.max(0, Math.min(255, Math.round(c)))),
        row + 1 + x * 3,
      );
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', Buffer.from([...u32(width), ...u32(height), 8, 2, 0, 0, 0])),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

export function png(
  width: number,
  height: number,
  rgb: [number, number, number],
  noise = false,
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    if (noise) {
      rows.set(randomBytes(width * 3), row + 1);
      continue;
    }
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor(x / 16) % 2 === 0;
      rows.set(stripe ? rgb : [255, 255, 255], row + 1 + x * 3);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}
