// A transport held to a byte rate, for benchmarks: what one end sends goes out through a token
// bucket, in order, as fast as `bytesPerSecond` allows on average. A message bigger than the
// bucket goes when the bucket is full and leaves it in debt, so the rate holds over time
// whatever the message sizes; what arrives is untouched.
import type { Transport } from '@minca/core';

export interface ThrottleOptions {
  /** Average bytes per second sent. */
  bytesPerSecond: number;
  /** Bytes that may go at once after a pause; 64 KiB by default. */
  burstBytes?: number;
}

/** `inner`, with its sends held to `options.bytesPerSecond`. */
export function throttled(inner: Transport, options: ThrottleOptions): Transport {
  const rate = options.bytesPerSecond;
  const burst = options.burstBytes ?? 64 * 1024;
  if (!(rate > 0) || !(burst > 0)) throw new RangeError('rate and burst must be positive');
  const queue: Uint8Array[] = [];
  let tokens = burst;
  let at = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const refill = () => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - at) / 1000) * rate);
    at = now;
  };
  const drain = () => {
    timer = undefined;
    refill();
    // A message goes once the bucket holds its size, or is full for one larger than it.
    while (queue.length > 0 && !inner.closed && tokens >= Math.min(queue[0]!.length, burst)) {
      const message = queue.shift()!;
      tokens -= message.length;
      inner.send(message);
    }
    if (queue.length > 0 && !inner.closed) {
      const need = Math.min(queue[0]!.length, burst) - tokens;
      timer = setTimeout(drain, Math.max(1, (need / rate) * 1000));
    }
  };

  return {
    send(message) {
      if (inner.closed) inner.send(message); // throws `closed`, as the transport would
      queue.push(message.slice());
      if (timer === undefined) drain();
    },
    get onMessage() {
      return inner.onMessage;
    },
    set onMessage(handler) {
      inner.onMessage = handler;
    },
    get onClose() {
      return inner.onClose;
    },
    set onClose(handler) {
      inner.onClose = handler;
    },
    close(reason) {
      queue.length = 0;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      inner.close(reason);
    },
    get closed() {
      return inner.closed;
    },
  };
}
