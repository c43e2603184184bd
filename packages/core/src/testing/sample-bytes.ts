/** Deterministic test bytes: a pattern no two seeds share, so a value landing under the wrong key shows. */

/** `size` pseudo-random bytes from `seed` (xorshift32: fast, and never all one byte). */
export function sampleBytes(seed: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = (seed * 2654435761 + 0x9e3779b9) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

/** A short value that names its key, for readable failures. */
export function valueFor(key: string, generation = 0): Uint8Array {
  const text = `${generation}:${key}`;
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[2 * i] = unit >> 8;
    out[2 * i + 1] = unit & 0xff;
  }
  return out;
}

/** A 64-hex version id derived from `n`. */
export function versionId(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0').repeat(8);
}
