// What a process holds once garbage is collected, for the benchmarks that give memory kept per
// space or per version.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

/** The JS heap and array buffers in use after two full collections, bytes. */
export function heapKept(): number {
  gc();
  gc();
  // Typed arrays' bytes are outside the JS heap: a set kept in blocks is mostly those.
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}
