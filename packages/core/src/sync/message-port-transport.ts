/**
 * A transport over a MessagePort (a MessageChannel's end, a worker, a SharedWorker port): for
 * tabs and workers. Structural types, so core needs no DOM types.
 */
import { MincaError } from '../errors.js';
import type { Transport } from './transport.js';

/** The part of a MessagePort this uses. */
export interface MessagePortLike {
  postMessage(message: unknown, transfer?: unknown[]): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  start?(): void;
  close(): void;
}

/** A closing port tells the other end with this message, since ports don't. */
const CLOSE = 'minca:close';

export function createMessagePortTransport(port: MessagePortLike): Transport {
  let closed = false;
  const transport: Transport = {
    onMessage: undefined,
    onClose: undefined,
    get closed() {
      return closed;
    },
    send(message) {
      if (closed) throw new MincaError('closed', 'the transport is closed');
      const copy = message.slice();
      port.postMessage(copy, [copy.buffer]);
    },
    close(reason) {
      if (closed) return;
      port.postMessage({ type: CLOSE, reason });
      finish(reason);
      port.close();
    },
  };
  const finish = (reason?: string) => {
    if (closed) return;
    closed = true;
    port.onmessage = null;
    transport.onClose?.(reason);
  };
  port.onmessage = ({ data }) => {
    if (data instanceof Uint8Array) transport.onMessage?.(data);
    else if (data instanceof ArrayBuffer) transport.onMessage?.(new Uint8Array(data));
    else if ((data as { type?: unknown } | null)?.type === CLOSE) {
      finish(String((data as { reason?: unknown }).reason ?? 'closed by peer'));
      port.close();
    }
    // Anything else is not ours and is ignored.
  };
  port.start?.();
  return transport;
}
