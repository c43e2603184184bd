/** A body's map of fields, as a reader checks one before trusting any of it. */
import type { BodyValue } from '@minca/core';

export type Fields = { [key: string]: BodyValue };

export const isFields = (value: unknown): value is Fields =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  !(value instanceof Uint8Array);
