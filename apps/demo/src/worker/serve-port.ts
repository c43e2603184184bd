/**
 * Answers a tab's calls arriving on `port` from `service`; a port the tab hands over (for the
 * service worker's media reads) is served by media-port.ts.
 */
import { isMincaError } from '@minca/core';
import type { AnswerMessage, CallMessage, NodeApi } from '../protocol.js';
import { type MediaOpener, serveMedia } from './media-port.js';

interface PortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

export function servePort(port: PortLike, service: NodeApi & MediaOpener): void {
  port.onmessage = async ({ data, ports }) => {
    const media = ports[0];
    if ((data as { media?: boolean } | null)?.media && media) return serveMedia(media, service);
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
