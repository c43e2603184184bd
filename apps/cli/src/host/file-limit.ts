/**
 * The process's file limit (RLIMIT_NOFILE, `ulimit -n`), and the connection caps that follow
 * from it: every connection takes a file, and a host out of files can neither accept a client
 * nor open its own database. Spec 06 §5.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { DEFAULT_HANDSHAKE_MS, type GateLimits } from './connection-gate.js';

/** Files kept for the host itself: its database, stdio, the event loop, a bucket's sockets. */
const RESERVED_FILES = 64;
/** Below this, `minca host` says at start that the limit is low. */
export const LOW_FILE_LIMIT = 4_096;

/** The soft limit on open files, or undefined where it can't be read. */
export function fileLimit(): number | undefined {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
    if (soft === 'unlimited') return Number.POSITIVE_INFINITY;
    if (soft !== undefined && /^\d+$/.test(soft)) return Number(soft);
  } catch {
    // Not Linux: ask the shell, whose limit is this process's.
  }
  try {
    const out = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2_000 });
    const text = out.trim();
    if (text === 'unlimited') return Number.POSITIVE_INFINITY;
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

export interface ConnectionLimits extends GateLimits {
  /** Connections at once, through the handshake or not; past it the server refuses at once. */
  maxConnections: number;
}

/**
 * Caps that leave the host files of its own: at most the limit less a reserve in all, and a
 * quarter of that (at most 1,024) waiting for their handshake, half of those from one address
 * (clients behind one NAT, or on loopback, share an address).
 */
export function connectionLimits(files = fileLimit()): ConnectionLimits {
  const usable = Number.isFinite(files ?? Number.NaN)
    ? Math.max(32, (files as number) - RESERVED_FILES)
    : 16_384;
  const maxPending = Math.max(16, Math.min(1_024, Math.floor(usable / 4)));
  return {
    handshakeMs: DEFAULT_HANDSHAKE_MS,
    maxConnections: usable,
    maxPending,
    maxPendingPerAddress: Math.max(8, Math.floor(maxPending / 2)),
  };
}

/** What to tell the operator at start when the file limit is low, or nothing. */
export function lowFileLimitNote(files = fileLimit()): string | undefined {
  if (files === undefined || files >= LOW_FILE_LIMIT) return undefined;
  const limits = connectionLimits(files);
  return (
    `the file limit (ulimit -n) is ${files}: this host takes at most ${limits.maxConnections} ` +
    `connections at once. Raise it (ulimit -n 65536, or LimitNOFILE=65536 in a systemd unit) ` +
    `to serve more`
  );
}
