/**
 * What a media request's `Range` header asks of a file of `size` bytes (RFC 9110 §14): the
 * bytes to send and the status to send them with. Media elements send one range, `bytes=a-`,
 * `bytes=a-b` or `bytes=-n`; a header that is not one range of bytes is ignored (the whole
 * file, 200), as the RFC lets a server do.
 */

/** Bytes `[start, end)` with status 200 (no range) or 206, or 416 when none of it exists. */
export type RangeAnswer = { status: 200 | 206; start: number; end: number } | { status: 416 };

const ONE_RANGE = /^bytes=(\d*)-(\d*)$/;

export function answerRange(header: string | null | undefined, size: number): RangeAnswer {
  const whole = { status: 200, start: 0, end: size } as const;
  const match = header ? ONE_RANGE.exec(header.trim()) : null;
  if (!match) return whole;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return whole;
  if (first === '') {
    // bytes=-n: the last n bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { status: 416 };
    return { status: 206, start: Math.max(0, size - n), end: size };
  }
  const start = Number(first);
  if (start >= size) return { status: 416 };
  if (last === '') return { status: 206, start, end: size };
  const inclusive = Number(last);
  if (inclusive < start) return whole;
  return { status: 206, start, end: Math.min(size, inclusive + 1) };
}

/** The `Content-Range` of an answer: `bytes a-b/size`, or `bytes *\/size` for a 416. */
export function contentRange(answer: RangeAnswer, size: number): string {
  return answer.status === 416
    ? `bytes */${size}`
    : `bytes ${answer.start}-${answer.end - 1}/${size}`;
}
