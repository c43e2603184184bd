import { describe, expect, it } from 'vitest';
import { answerRange, contentRange } from '../src/media-range.ts';

describe('answerRange', () => {
  const size = 1000;
  it('gives the whole file to a request without a range', () => {
    expect(answerRange(null, size)).toEqual({ status: 200, start: 0, end: 1000 });
    expect(answerRange('', size)).toEqual({ status: 200, start: 0, end: 1000 });
  });

  it('answers the ranges media elements send', () => {
    expect(answerRange('bytes=0-', size)).toEqual({ status: 206, start: 0, end: 1000 });
    expect(answerRange('bytes=500-', size)).toEqual({ status: 206, start: 500, end: 1000 });
    expect(answerRange('bytes=10-19', size)).toEqual({ status: 206, start: 10, end: 20 });
    expect(answerRange('bytes=990-5000', size)).toEqual({ status: 206, start: 990, end: 1000 });
    expect(answerRange('bytes=-100', size)).toEqual({ status: 206, start: 900, end: 1000 });
    expect(answerRange('bytes=-5000', size)).toEqual({ status: 206, start: 0, end: 1000 });
  });

  it('is 416 for a range past the end, with the size in Content-Range', () => {
    const past = answerRange('bytes=1000-', size);
    expect(past).toEqual({ status: 416 });
    expect(contentRange(past, size)).toBe('bytes */1000');
    expect(answerRange('bytes=-0', size)).toEqual({ status: 416 });
    expect(answerRange('bytes=0-', 0)).toEqual({ status: 416 });
  });

  it('ignores what is not one range of bytes', () => {
    for (const header of ['bytes=0-1,5-9', 'items=0-5', 'bytes=a-b', 'bytes=9-3', 'bytes=-']) {
      expect(answerRange(header, size)).toEqual({ status: 200, start: 0, end: 1000 });
    }
  });

  it('writes Content-Range with the last byte included', () => {
    expect(contentRange({ status: 206, start: 10, end: 20 }, size)).toBe('bytes 10-19/1000');
  });
});
