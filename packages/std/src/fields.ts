/** Reading a body's fields as they came: anything from a peer is checked before it is used. */
import type { BodyValue } from '@minca/core';

export type Fields = { [key: string]: BodyValue };

/** A map with text keys (a body's object), not an array or bytes. */
export const isFields = (value: unknown): value is Fields =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Uint8Array);

/** Text of 1 to `max` characters (UTF-16 code units) with something besides white space. */
export const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length <= max && value.trim().length > 0;

export const isWholeIn = (value: unknown, min: number, max: number): value is number =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
