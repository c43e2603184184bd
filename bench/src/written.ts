// What this process has written, for the benchmarks that give bytes written per version.
import { readFileSync } from 'node:fs';

/**
 * Bytes this process has written through write calls (to files and sockets) since it started:
 * `wchar` of /proc/self/io; `undefined` off Linux.
 */
export function writtenBytes(): number | undefined {
  try {
    const wchar = /^wchar:\s+(\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return wchar ? Number(wchar[1]) : undefined;
  } catch {
    return undefined;
  }
}
