/**
 * Where SharedWorker is missing: a worker of one tab, started while the tab is in view.
 */
import type { EventMessage } from '../protocol.js';
import { NodeService } from './node-service.js';
import { servePort } from './serve-port.js';

const scope = globalThis as unknown as {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
};
const service = new NodeService((event: EventMessage) => scope.postMessage(event));
servePort(scope, service);
