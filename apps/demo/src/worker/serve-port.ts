/** Answers a tab's calls arriving on `port` from `service`. */
import { isMincaError } from '@minca/core';
import type { AnswerMessage, CallMessage, NodeApi } from '../protocol.js';

interface PortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

export function servePort(port: PortLike, service: NodeApi): void {
  port.onmessage = async ({ data }) => {
    const { call, method, args } = data as CallMessage;
    if (typeof call !== 'number' || typeof method !== 'string') return;
    let answer: AnswerMessage;
    try {
      const fn = service[method] as (...a: unknown[]) => Promise<unknown>;
      if (typeof fn !== 'function') throw new TypeError(`no method ${method}`);
      answer = { answer: call, value: await fn.apply(service, args) };
    } catch (error) {
      answer = {
        answer: call,
        error: {
          code: isMincaError(error) ? error.code : 'error',
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
    port.postMessage(answer);
  };
}
