/**
 * The device's file limits, chosen by the person and kept in this browser (the node keeps
 * none, so the tab gives them at each start).
 */
import type { FileLimitsView } from './protocol.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const AHEAD_CHOICES: Array<[number, string]> = [
  [256 * KiB, 'Thumbnails and small files (256 KiB)'],
  [5 * MiB, 'Photos and documents (5 MiB, the default)'],
  [Number.POSITIVE_INFINITY, 'Everything'],
];
export const KEEP_CHOICES: Array<[number, string]> = [
  [64 * MiB, '64 MiB'],
  [256 * MiB, '256 MiB (the default)'],
  [GiB, '1 GiB'],
  [Number.POSITIVE_INFINITY, 'Everything'],
];
export const DEFAULT_LIMITS: FileLimitsView = { ahead: 5 * MiB, keep: 256 * MiB };

const storageKey = (account: string) => `minca-demo:limits:${account}`;
// JSON has no Infinity: it is kept as null.
const fromJson = (v: unknown, fallback: number) =>
  v === null ? Number.POSITIVE_INFINITY : typeof v === 'number' && v > 0 ? v : fallback;

export function loadLimits(account: string): FileLimitsView {
  try {
    const saved = JSON.parse(localStorage.getItem(storageKey(account)) ?? '{}');
    return {
      ahead: fromJson(saved.ahead, DEFAULT_LIMITS.ahead),
      keep: fromJson(saved.keep, DEFAULT_LIMITS.keep),
    };
  } catch {
    return { ...DEFAULT_LIMITS };
  }
}

export function saveLimits(account: string, limits: FileLimitsView): void {
  const json = (n: number) => (Number.isFinite(n) ? n : null);
  localStorage.setItem(
    storageKey(account),
    JSON.stringify({ ahead: json(limits.ahead), keep: json(limits.keep) }),
  );
}

/** Forgets the account's choices (the account is forgotten in this browser). */
export function forgetLimits(account: string): void {
  localStorage.removeItem(storageKey(account));
}

export function formatBytes(n: number): string {
  if (n < KiB) return `${n} B`;
  if (n < MiB) return `${(n / KiB).toFixed(0)} KiB`;
  return `${(n / MiB).toFixed(1)} MiB`;
}
